import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { verifyWebhook } from '../packages/client/src';
import { DeliveryService } from '../src/delivery/attempts/delivery.service';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import {
  eventJsonSchema,
  pingJsonSchema,
  type EventInput,
} from '../src/webhooks/event-schemas.constants';
import { EVENT_TYPES, type EventType } from '../src/webhooks/event-types.constants';
import { startTestApp, uploadBody, type TestApp } from './support/test-app';
import { receiverPool, type ReceivedWebhook } from './support/webhook-receiver';

/**
 * Every event type as really delivered, checked against its published JSON Schema
 * (docs/webhooks.md#payload-schemas) with a standard draft 2020-12 validator, after the
 * client package's verifyWebhook accepted its signature: the upload's two types through a real
 * upload, the other five through the outbox publisher as a module of the service calls it, and
 * every type's test event and a ping through the dashboard's test sends.
 */
describe('Event payload schemas on real deliveries (docs/webhooks.md#payload-schemas)', () => {
  let t: TestApp;
  const receivers = receiverPool();
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  const validators = new Map(
    [...EVENT_TYPES, 'ping'].map((type) => [
      type,
      ajv.compile(type === 'ping' ? pingJsonSchema() : eventJsonSchema(type as EventType)),
    ]),
  );

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    await receivers.stopAll();
  });

  /** Verifies each request with the endpoint's secret and lists the schema errors of each body. */
  function checked(received: ReceivedWebhook[], secret: string) {
    return received.map((webhook) => {
      const event = verifyWebhook(webhook.body, webhook.headers, secret);
      const validate = validators.get(event.type)!;
      return { type: event.type, errors: validate(event) ? [] : validate.errors, event };
    });
  }

  it('each of the seven types, as published and delivered, matches its schema', async () => {
    const me = await t.given.caller();
    const receiver = await receivers.start();
    const { secret } = await t.given.endpoint(me.campaignId, receiver.url, [...EVENT_TYPES]);
    await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${me.token}`)
      .send(
        uploadBody(me.campaignId, [
          { phone: '+14155552671', first_name: 'Ada', email: 'ada@example.com' },
          { phone: '+442079460958' },
        ]),
      )
      .expect(202);
    await receiver.waitFor(3);
    const [lead] = await t.db.query('SELECT id FROM lead WHERE phone = $1 AND campaign_id = $2', [
      '+14155552671',
      me.campaignId,
    ]);
    const leadId = Number((lead as { id: string }).id);
    const at = new Date().toISOString();
    const campaign_id = me.campaignId;
    const others: EventInput[] = [
      {
        type: 'lead.status_changed',
        data: {
          lead_id: leadId,
          campaign_id,
          previous_status: null,
          status: 'contacted',
          changed_at: at,
        },
      },
      {
        type: 'lead.converted',
        data: {
          lead_id: leadId,
          campaign_id,
          conversion: 'sale',
          value: null,
          currency: null,
          converted_at: at,
        },
      },
      {
        type: 'call.started',
        data: {
          call_id: 'CA-1',
          lead_id: leadId,
          campaign_id,
          phone: '+14155552671',
          direction: 'inbound',
          started_at: at,
        },
      },
      {
        type: 'call.completed',
        data: {
          call_id: 'CA-1',
          lead_id: null,
          campaign_id,
          phone: '+14155552671',
          duration_seconds: 0,
          outcome: 'no_answer',
          completed_at: at,
        },
      },
      {
        type: 'form.submitted',
        data: {
          form_id: 'rsvp',
          submission_id: 'sub-1',
          lead_id: null,
          campaign_id,
          fields: { guests: 2, vegetarian: true, note: null },
          submitted_at: at,
        },
      },
    ];
    const recorded = await t.app.get(WebhookEventPublisher).publish(me.campaignId, others);
    expect(recorded.events).toHaveLength(5);

    const results = checked(await receiver.waitFor(8), secret);
    expect(results.map(({ type, errors }) => ({ type, errors }))).toEqual(
      expect.arrayContaining(
        [...EVENT_TYPES, 'lead.created'].map((type) => ({ type, errors: [] })),
      ),
    );
    expect(results.every((r) => r.errors?.length === 0)).toBe(true);
    expect(new Set(results.map((r) => r.type))).toEqual(new Set(EVENT_TYPES));
    // The lead with no name nor email: its nulls are in the schema too.
    const bare = results
      .map((r) => r.event)
      .find((event) => event.type === 'lead.created' && event.data.phone === '+442079460958');
    expect(bare?.data).toMatchObject({ first_name: null, email: null });
  });

  it('every test event and the ping, as the dashboard sends them, match their schemas', async () => {
    const me = await t.given.caller();
    const receiver = await receivers.start();
    const { id, secret } = await t.given.endpoint(me.campaignId, receiver.url, ['lead.created']);
    const delivery = t.app.get(DeliveryService);
    for (const type of [...EVENT_TYPES, undefined]) {
      const attempt = await delivery.sendTest(id, type);
      expect(attempt.success).toBe(true);
    }
    const results = checked(await receiver.waitFor(8), secret);
    expect(results.map(({ type, errors }) => ({ type, errors }))).toEqual(
      [...EVENT_TYPES, 'ping'].map((type) => ({ type, errors: [] })),
    );
  });
});
