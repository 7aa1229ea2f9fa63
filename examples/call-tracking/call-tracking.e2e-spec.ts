import { DynamicModule, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource, type EntityManager } from 'typeorm';
import { CampaignNotFoundError } from '../../src/campaigns/campaign-errors';
import { ConflictError, InvalidInputError } from '../../src/common/domain-error';
import type { AppConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { buildDataSourceOptions } from '../../src/database/database-options';
import { DatabaseModule } from '../../src/database/database.module';
import { QueueRootModule } from '../../src/queue/queue-root.module';
import { ENTITIES } from '../../src/entities';
import {
  WebhookEventPublisher,
  type RecordedEvents,
} from '../../src/delivery/outbox/webhook-event.publisher';
import { TEST_DATABASE_URL } from '../../test/support/env';
import { eventually, sleep } from '../../test/support/eventually';
import { startTestApp, type TestApp } from '../../test/support/test-app';
import { verifyWebhook, WebhookReceiver } from '../../test/support/webhook-receiver';
import { CallLog } from './call-log.entity';
import { CallTrackingModule } from './call-tracking.module';
import { CallLogService, type CompletedCall } from './call-log.service';
import { CreateCallLogExample1795500000000 } from './create-call-log.migration';

/** How often the API's worker sweeps: a delivery committed but never queued is sent within ~1 s. */
const SWEEP_INTERVAL_MS = 500;

/**
 * A process that loads the example module the way `AppModule`, `WorkerModule` or a CLI group
 * would: the root modules every process has (configuration, PostgreSQL, the queue's Redis
 * connection) plus the module itself.
 */
@Module({})
class CallTrackingHost {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CallTrackingHost,
      imports: [ConfigModule.forRoot(config), DatabaseModule, QueueRootModule, CallTrackingModule],
    };
  }
}

describe('Example: CallTrackingModule (docs/architecture.md#worked-example-call-tracking)', () => {
  /** The real API, whose delivery worker sends what the example records. */
  let t: TestApp;
  /** The example module's process, on the same database and queue as the API. */
  let host: INestApplicationContext;
  let calls: CallLogService;
  let publisher: WebhookEventPublisher;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await new WebhookReceiver().start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS) });
    // The example's table, on this file's own copy of the template database only.
    const runner = t.db.createQueryRunner();
    try {
      await new CreateCallLogExample1795500000000().up(runner);
    } finally {
      await runner.release();
    }
    host = await NestFactory.createApplicationContext(CallTrackingHost.forRoot(t.config), {
      logger: false,
      abortOnError: false,
    });
    await host.init();
    calls = host.get(CallLogService);
    publisher = host.get(WebhookEventPublisher, { strict: false });
  });

  afterAll(async () => {
    await host?.close();
    await t?.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  afterEach(() => jest.restoreAllMocks());

  const campaign = async () => t.given.campaign(await t.given.account());

  const call = (callId: string, overrides: Partial<CompletedCall> = {}): CompletedCall => ({
    callId,
    phone: '+14155552671',
    durationSeconds: 93,
    outcome: 'answered',
    ...overrides,
  });

  const callRows = (campaignId: number) =>
    t.db.query(
      `SELECT id, call_id, phone, duration_seconds, outcome, created_at
         FROM call_log WHERE campaign_id = $1 ORDER BY id`,
      [campaignId],
    );
  const eventRows = (campaignId: number) =>
    t.db.query('SELECT id, type, body FROM webhook_event WHERE campaign_id = $1 ORDER BY id', [
      campaignId,
    ]);
  const deliveryRows = (campaignId: number) =>
    t.db.query(
      `SELECT d.id, d.event_id, d.endpoint_id, d.status
         FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
        WHERE e.campaign_id = $1 ORDER BY d.id`,
      [campaignId],
    );

  it('the example migration creates exactly the table the entity describes', async () => {
    // As test/schema.e2e-spec.ts does for the service's own entities and migrations.
    const dataSource = new DataSource(
      buildDataSourceOptions(TEST_DATABASE_URL, 1, [...ENTITIES, CallLog]),
    );
    await dataSource.initialize();
    try {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('delivers a signed call.completed to the subscribed endpoint only', async () => {
    const campaignId = await campaign();
    const otherCampaignId = await campaign();
    const subscribed = await receiver();
    const notSubscribed = await receiver();
    const otherCampaign = await receiver();
    const { id: endpointId, secret } = await t.given.endpoint(campaignId, subscribed.url, [
      'call.completed',
    ]);
    const { id: unsubscribedId } = await t.given.endpoint(campaignId, notSubscribed.url, [
      'lead.created',
      'call.started',
    ]);
    await t.given.endpoint(otherCampaignId, otherCampaign.url, ['call.completed']);

    const { call: stored, eventId } = await calls.completeCall(campaignId, call('CA-100'));

    // The call row, as committed.
    const [row] = await callRows(campaignId);
    expect(row).toMatchObject({
      id: stored.id,
      call_id: 'CA-100',
      phone: '+14155552671',
      duration_seconds: 93,
      outcome: 'answered',
    });

    // What arrived verifies with the endpoint's secret and is the recorded body, byte for byte.
    const [webhook] = await subscribed.waitFor(1);
    const body = verifyWebhook(secret, webhook);
    expect(body).toEqual({
      type: 'call.completed',
      timestamp: expect.stringMatching(/Z$/),
      data: {
        call_id: 'CA-100',
        lead_id: null,
        campaign_id: campaignId,
        phone: '+14155552671',
        duration_seconds: 93,
        outcome: 'answered',
        completed_at: new Date(row.created_at).toISOString(),
      },
    });
    expect(webhook.headers['webhook-id']).toBe(eventId);
    expect(await eventRows(campaignId)).toEqual([
      { id: eventId, type: 'call.completed', body: webhook.body },
    ]);

    // One delivery, to the subscribed endpoint, and it succeeded.
    await eventually(async () => {
      expect(await deliveryRows(campaignId)).toEqual([
        { id: expect.anything(), event_id: eventId, endpoint_id: endpointId, status: 'succeeded' },
      ]);
    });
    const deliveries = await deliveryRows(campaignId);
    expect(deliveries.map((d: { endpoint_id: number }) => d.endpoint_id)).not.toContain(
      unsubscribedId,
    );

    // Long enough for a sweep to have sent anything committed: nobody else got anything.
    await sleep(3 * SWEEP_INTERVAL_MS);
    expect(subscribed.received).toHaveLength(1);
    expect(notSubscribed.received).toHaveLength(0);
    expect(otherCampaign.received).toHaveLength(0);
    expect(await eventRows(otherCampaignId)).toEqual([]);
  });

  it('stores the call but records no event when no endpoint subscribes to call.completed', async () => {
    const campaignId = await campaign();
    const r = await receiver();
    await t.given.endpoint(campaignId, r.url, ['lead.created']);

    const { eventId } = await calls.completeCall(campaignId, call('CA-200'));

    expect(eventId).toBeNull();
    expect(await callRows(campaignId)).toHaveLength(1);
    expect(await eventRows(campaignId)).toEqual([]);
    expect(await deliveryRows(campaignId)).toEqual([]);
  });

  it('rolls back the call, the event and its delivery when the transaction fails after recording, and sends nothing', async () => {
    const campaignId = await campaign();
    const r = await receiver();
    const { id: endpointId, secret } = await t.given.endpoint(campaignId, r.url, [
      'call.completed',
    ]);

    // The failure: record() does its work in the service's transaction, then the transaction
    // throws before it can commit. What was written inside it is read back first, to prove
    // the rows existed before the rollback removed them.
    const record = publisher.record.bind(publisher);
    let recorded: RecordedEvents | undefined;
    let insideTransaction: { calls: number; events: number; deliveries: number } | undefined;
    jest
      .spyOn(publisher, 'record')
      .mockImplementationOnce(async (manager: EntityManager, id, inputs) => {
        recorded = await record(manager, id, inputs);
        const [counts] = await manager.query(
          `SELECT (SELECT count(*)::int FROM call_log WHERE campaign_id = $1) AS calls,
                  (SELECT count(*)::int FROM webhook_event WHERE campaign_id = $1) AS events,
                  (SELECT count(*)::int FROM webhook_delivery WHERE endpoint_id = $2) AS deliveries`,
          [campaignId, endpointId],
        );
        insideTransaction = counts;
        throw new Error('failure after record');
      });
    const dispatch = jest.spyOn(publisher, 'dispatch');

    await expect(calls.completeCall(campaignId, call('CA-300'))).rejects.toThrow(
      'failure after record',
    );

    expect(recorded?.events).toHaveLength(1);
    expect(recorded?.deliveries).toHaveLength(1);
    expect(insideTransaction).toEqual({ calls: 1, events: 1, deliveries: 1 });
    expect(dispatch).not.toHaveBeenCalled();
    expect(await callRows(campaignId)).toEqual([]);
    expect(
      await t.db.query('SELECT id FROM webhook_event WHERE id = $1', [recorded!.events[0].id]),
    ).toEqual([]);
    expect(
      await t.db.query('SELECT id FROM webhook_delivery WHERE id = $1', [
        recorded!.deliveries[0].id,
      ]),
    ).toEqual([]);
    expect(await deliveryRows(campaignId)).toEqual([]);

    // The same call again, without the failure: stored and delivered once. Then, after a few
    // sweeps, it is still the only thing the endpoint ever received.
    const { eventId } = await calls.completeCall(campaignId, call('CA-300'));
    const [webhook] = await r.waitFor(1);
    expect(verifyWebhook(secret, webhook).data).toMatchObject({ call_id: 'CA-300' });
    await sleep(3 * SWEEP_INTERVAL_MS);
    expect(r.received.map((w) => w.headers['webhook-id'])).toEqual([eventId]);
    expect(await callRows(campaignId)).toHaveLength(1);
    expect((await eventRows(campaignId)).map((e: { id: string }) => e.id)).toEqual([eventId]);
  });

  it('throws domain errors and writes nothing for bad input, an unknown campaign or a repeated call', async () => {
    const campaignId = await campaign();
    const r = await receiver();
    await t.given.endpoint(campaignId, r.url, ['call.completed']);

    const invalid = calls.completeCall(campaignId, call('CA-400', { durationSeconds: -1 }));
    await expect(invalid).rejects.toBeInstanceOf(InvalidInputError);
    await expect(invalid).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'durationSeconds',
      message: 'durationSeconds must be a whole number of seconds, 0 or more',
    });
    await expect(calls.completeCall(2_000_000_000, call('CA-400'))).rejects.toBeInstanceOf(
      CampaignNotFoundError,
    );

    const first = await calls.completeCall(campaignId, call('CA-400'));
    await expect(calls.completeCall(campaignId, call('CA-400'))).rejects.toBeInstanceOf(
      ConflictError,
    );

    // Only the first call and its one event exist; the receiver got that event once.
    expect((await callRows(campaignId)).map((c: { id: number }) => c.id)).toEqual([first.call.id]);
    expect((await eventRows(campaignId)).map((e: { id: string }) => e.id)).toEqual([first.eventId]);
    await r.waitFor(1);
    await sleep(3 * SWEEP_INTERVAL_MS);
    expect(r.received).toHaveLength(1);
  });
});
