/**
 * How the service behaves when a process stops or a client goes away: shutdown with keep-alive
 * clients, a worker stopped or killed mid-dispatch, deployments that share a Redis, the
 * sweeper, unauthenticated requests, campaign look-ups and aborted uploads
 * (docs/reliability.md). The fault-injection suite (test/fault) covers the same ground under
 * load with real outages.
 */
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CampaignsService } from '../src/campaigns/campaigns.service';
import { CampaignsRepository } from '../src/campaigns/campaigns.repository';
import { buildDataSourceOptions } from '../src/database/database-options';
import { readDeploymentIdentity } from '../src/database/deployment-identity';
import { DeliverySweeper } from '../src/delivery/worker/delivery.sweeper';
import { DELIVERY_QUEUE } from '../src/delivery/outbox/delivery.queue';
import { UNKNOWN_OUTCOME } from '../src/delivery/attempts/attempt-records';
import { TEST_DATABASE_URL } from './support/env';
import { freshDatabase, givenCampaign, runCli, ServiceProcess } from './support/processes';
import { RawConnection, rawExchange, parseResponse } from './support/raw-http';
import { startTestApp, type TestApp, uploadBody } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { eventually, sleep } from './support/eventually';

const UPLOAD = '/api/v1/leads/upload';
const phones = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({ phone: `+1${prefix}${String(i).padStart(4, '0')}` }));

/** An API key for `accountId` made by the operator CLI, exchanged for a token at `base`. */
async function tokenFor(base: string, env: Record<string, string>, accountId: number) {
  const apiKey = runCli(env, 'api-key', 'create', '--account', String(accountId)).api_key;
  const res = await request(base)
    .post('/api/v1/auth/api-key/token')
    .send({ api_key: apiKey })
    .expect(200);
  return res.body.access_token as string;
}

/** An API process (no worker) on a free port of its own, with its own queue namespace. */
async function apiProcess(name: string) {
  const env = {
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${name}`,
    RUN_WORKER: 'false',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
  const api = new ServiceProcess('main.js', env);
  const base = (await api.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1];
  return { api, env, base, port: Number(new URL(base).port) };
}

/** An HTTP/1.1 upload request's head with an exact Content-Length, keep-alive. */
function uploadHead(token: string | null, contentLength: number): string {
  return (
    `POST ${UPLOAD} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${contentLength}\r\n` +
    (token ? `Authorization: Bearer ${token}\r\n` : '') +
    '\r\n'
  );
}

describe('Process stops, shared infrastructure and departing clients', () => {
  let db: Client;
  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });
  afterAll(() => db.end());

  describe('SIGTERM with keep-alive clients', () => {
    it('answers the in-flight upload with Connection: close, closes idle keep-alive connections and exits 0', async () => {
      const { api, env, base, port } = await apiProcess('keepalive');
      try {
        const { accountId, campaignId } = await givenCampaign(db, 'Keep-alive');
        const token = await tokenFor(base, env, accountId);

        // One connection that has served a request and now idles, as a client's pool keeps it.
        const idle = await RawConnection.open(port);
        idle.write(
          'GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n',
        );
        expect((await idle.response()).status).toBe(200);

        // One upload in flight: its body is only half sent when SIGTERM arrives.
        const body = JSON.stringify(uploadBody(campaignId, phones(50, '212555')));
        const busy = await RawConnection.open(port);
        busy.write(uploadHead(token, Buffer.byteLength(body)) + body.slice(0, 40));
        await sleep(300);
        api.signal('SIGTERM');
        await api.waitForOutput(/SIGTERM received/);

        expect(await idle.closedWithin(5_000)).toBe(true);
        busy.write(body.slice(40));
        const answer = await busy.response();
        expect(answer.status).toBe(202);
        expect(answer.headers.connection).toBe('close');
        expect(JSON.parse(answer.body)).toMatchObject({ status: 'accepted', valid_count: 50 });
        expect(await busy.closedWithin(5_000)).toBe(true);

        expect(await api.exitCode()).toBe(0);
        expect(api.output).toMatch(/Shut down cleanly/);
        const { rows } = await db.query(
          'SELECT count(*)::int AS n FROM lead WHERE campaign_id = $1',
          [campaignId],
        );
        expect(rows[0].n).toBe(50);
      } finally {
        await api.stop();
      }
    }, 60_000);
  });

  describe('a worker stopped mid-dispatch', () => {
    let t: TestApp;
    let receiver: WebhookReceiver;
    const prefix = `${process.env.QUEUE_PREFIX}-drain`;
    let databaseUrl: string;
    beforeAll(async () => {
      receiver = await new WebhookReceiver().start();
      receiver.behaviour = { status: 204, delayMs: 150 };
      databaseUrl = await freshDatabase('drain');
      t = await startTestApp({
        QUEUE_PREFIX: prefix,
        RUN_WORKER: 'false',
        DATABASE_URL: databaseUrl,
      });
    });
    afterAll(async () => {
      await t.close();
      await receiver.stop();
    });

    it('stops taking jobs before its HTTP client closes: no attempt is recorded that was never sent', async () => {
      const worker = new ServiceProcess('worker.js', {
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'info',
        DATABASE_URL: databaseUrl,
      });
      try {
        await worker.waitForOutput(/Delivery worker running/);
        const me = await t.given.caller();
        const endpoint = await t.given.endpoint(me.campaignId, receiver.url, ['lead.created']);
        await t
          .http()
          .post(UPLOAD)
          .set('Authorization', `Bearer ${me.token}`)
          .send(uploadBody(me.campaignId, phones(400, '646555')))
          .expect(202);
        await receiver.waitFor(60, 20_000);
        expect(await worker.stop()).toBe(0);

        const rows = await t.db.query(
          `SELECT count(*)::int AS attempts,
                  count(*) FILTER (WHERE success)::int AS succeeded,
                  count(*) FILTER (WHERE finished_at IS NULL)::int AS unfinished,
                  count(*) FILTER (WHERE error ILIKE '%destroyed%')::int AS destroyed
             FROM webhook_delivery_attempt WHERE endpoint_id = $1`,
          [endpoint.id],
        );
        expect(rows[0]).toEqual({
          attempts: receiver.received.length,
          succeeded: receiver.received.length,
          unfinished: 0,
          destroyed: 0,
        });
        const [health] = await t.db.query(
          'SELECT total_deliveries, successful_deliveries FROM webhook_endpoint WHERE id = $1',
          [endpoint.id],
        );
        expect(health).toEqual({
          total_deliveries: receiver.received.length,
          successful_deliveries: receiver.received.length,
        });
        expect(receiver.received.length).toBeLessThan(400); // it did stop mid-dispatch
      } finally {
        await worker.stop();
      }
    }, 60_000);
  });

  describe('deployments that share a Redis', () => {
    let otherUrl: string;
    let t: TestApp;
    beforeAll(async () => {
      otherUrl = await freshDatabase('other_deployment');
      t = await startTestApp({ WEBHOOK_SWEEP_INTERVAL_MS: '3600000' });
    });
    afterAll(() => t.close());

    it('derive different namespaces from their databases when QUEUE_PREFIX is unset', async () => {
      const identities = [];
      for (const url of [TEST_DATABASE_URL, otherUrl]) {
        const dataSource = new DataSource(buildDataSourceOptions(url, 1));
        await dataSource.initialize();
        identities.push(await readDeploymentIdentity(dataSource, null));
        await dataSource.destroy();
      }
      expect(identities[0].queuePrefix).toMatch(/^campaign-api-[0-9a-f]{12}$/);
      expect(identities[1].queuePrefix).toMatch(/^campaign-api-[0-9a-f]{12}$/);
      expect(identities[0].id).not.toBe(identities[1].id);
      expect(identities[0].queuePrefix).not.toBe(identities[1].queuePrefix);
    });

    it('refuse to start on a QUEUE_PREFIX that another deployment has claimed', async () => {
      const intruder = new ServiceProcess(
        'worker.js',
        { DATABASE_URL: otherUrl, QUEUE_PREFIX: t.config.queuePrefix! },
        { expectFailure: true },
      );
      expect(await intruder.exitCode()).toBe(1);
      // The refusal is the process's own output, asserted here, not printed by the test.
      expect(intruder.output).toContain(`QUEUE_PREFIX "${t.config.queuePrefix}" is already used`);
      expect(intruder.output).toContain('QueueNamespaceConflictError');
    });

    it('never complete a job of another deployment: the worker puts it back', async () => {
      const queue = t.app.get<Queue>(getQueueToken(DELIVERY_QUEUE));
      const job = await queue.add(
        'deliver',
        { deliveryId: 987_654_321, deployment: randomUUID() },
        { jobId: `foreign-${randomUUID()}` },
      );
      await eventually(async () => expect(await job.getState()).toBe('delayed'), 10_000);
      await sleep(500);
      expect(await job.getState()).toBe('delayed');
      await job.remove();
    });
  });

  describe('committed deliveries left to the sweeper', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ WEBHOOK_SWEEP_INTERVAL_MS: '3600000' });
    });
    afterAll(() => t.close());

    it('are all re-queued by one sweep, not a thousand per interval', async () => {
      const me = await t.given.caller();
      // A disabled endpoint: the worker drops what the sweeper queues without sending.
      const endpoint = await t.given.endpoint(
        me.campaignId,
        'http://127.0.0.1:9/',
        ['call.completed'],
        {
          enabled: false,
        },
      );
      await t.db.query(
        `WITH e AS (
           INSERT INTO webhook_event (id, campaign_id, type, body, created_at)
           SELECT gen_random_uuid(), $1, 'call.completed', '{}', now() FROM generate_series(1, 2500)
           RETURNING id)
         INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, next_attempt_at)
         SELECT id, $2, 'pending', 0, now() - interval '2 hours' FROM e`,
        [me.campaignId, endpoint.id],
      );
      const queued = await t.app.get(DeliverySweeper).sweep();
      expect(queued).toBeGreaterThanOrEqual(2500);
      await eventually(async () => {
        const rows = await t.db.query(
          `SELECT count(*) FILTER (WHERE status = 'dropped')::int AS dropped FROM webhook_delivery WHERE endpoint_id = $1`,
          [endpoint.id],
        );
        expect(rows[0].dropped).toBe(2500);
      });
    });
  });

  describe('a worker killed while the receiver holds its request', () => {
    it('has the attempt on record before the send, closes it as of unknown outcome, and the retry is recorded too', async () => {
      const env = { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-sigkill`, LOG_LEVEL: 'info' };
      const receiver = await new WebhookReceiver().start();
      receiver.behaviour = (index) =>
        index === 0 ? { status: 204, delayMs: 60_000 } : { status: 204 };
      const first = new ServiceProcess('worker.js', env);
      let second: ServiceProcess | undefined;
      try {
        await first.waitForOutput(/Delivery worker running/);
        const { campaignId } = await givenCampaign(db, 'Killed worker');
        const endpoint = runCli(
          env,
          'endpoint',
          'create',
          '--campaign',
          String(campaignId),
          '--url',
          receiver.url,
          '--events',
          'call.completed',
        );
        const event = runCli(
          env,
          'event',
          'emit',
          '--campaign',
          String(campaignId),
          '--type',
          'call.completed',
          '--data',
          '{}',
        );
        await receiver.waitFor(1);
        const { rows: inFlight } = await db.query(
          'SELECT message_id, finished_at FROM webhook_delivery_attempt WHERE endpoint_id = $1',
          [endpoint.id],
        );
        expect(inFlight).toEqual([{ message_id: event.id, finished_at: null }]);

        first.signal('SIGKILL');
        await first.exitCode();
        second = new ServiceProcess('worker.js', env);
        await eventually(async () => {
          const { rows } = await db.query(
            'SELECT status FROM webhook_delivery WHERE endpoint_id = $1',
            [endpoint.id],
          );
          expect(rows).toEqual([{ status: 'succeeded' }]);
        }, 45_000);

        const { rows: attempts } = await db.query(
          `SELECT success, error, finished_at IS NOT NULL AS finished FROM webhook_delivery_attempt
            WHERE endpoint_id = $1 ORDER BY id`,
          [endpoint.id],
        );
        expect(attempts).toEqual([
          { success: false, error: UNKNOWN_OUTCOME, finished: true },
          { success: true, error: null, finished: true },
        ]);
        expect(receiver.received.map((w) => w.headers['webhook-id'])).toEqual([event.id, event.id]);
        const [health] = (
          await db.query(
            'SELECT total_deliveries, successful_deliveries, failed_deliveries FROM webhook_endpoint WHERE id = $1',
            [endpoint.id],
          )
        ).rows;
        expect(health).toEqual({
          total_deliveries: 2,
          successful_deliveries: 1,
          failed_deliveries: 1,
        });
      } finally {
        first.signal('SIGKILL');
        await second?.stop();
        await receiver.stop();
      }
    }, 90_000);
  });

  describe('unauthenticated requests', () => {
    let t: TestApp;
    let port: number;
    beforeAll(async () => {
      t = await startTestApp({ RATE_LIMIT_AUTH_FAILURES_PER_MIN: '3' });
      await t.app.listen(0, '127.0.0.1');
      port = (t.app.getHttpServer().address() as AddressInfo).port;
    });
    afterAll(() => t.close());

    it('are refused before a large body is read', async () => {
      const head = uploadHead(null, 12_000_000);
      const exchange = await rawExchange(port, [head, '{"campaign_id": 1, "leads": ['], {
        untilResponse: true,
      });
      const answer = parseResponse(exchange.text);
      expect(answer.status).toBe(401);
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body)).toEqual({
        error: 'unauthorized',
        message: expect.any(String),
      });
    });

    it('are limited per client IP: past the limit of failures, 429 with Retry-After; a valid token still works', async () => {
      const me = await t.given.caller();
      const events = `/api/v1/webhooks/${me.campaignId}/events`;
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await t.http().get(events).set('Authorization', 'Bearer forged')).status);
      }
      expect(statuses.slice(0, 2)).toEqual([401, 401]);
      expect(statuses.slice(-2)).toEqual([429, 429]);
      const limited = await t.http().get(events).set('Authorization', 'Bearer forged').expect(429);
      expect(limited.body).toEqual({ error: 'rate_limited', message: expect.any(String) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      await t.http().get(events).set('Authorization', `Bearer ${me.token}`).expect(200);
    });
  });

  describe('campaign look-ups', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it('cost the same for a campaign of another account as for one that does not exist', async () => {
      const me = await t.given.caller();
      const other = await t.given.caller();
      const campaigns = t.app.get(CampaignsService);
      const findOne = jest.spyOn(t.app.get(CampaignsRepository), 'findScope');
      try {
        for (const id of [other.campaignId, 2_000_000_000]) {
          findOne.mockClear();
          expect(await campaigns.findScopeOf(me.accountId, id)).toBeNull();
          expect(await campaigns.findScopeOf(me.accountId, id)).toBeNull();
          expect(findOne).toHaveBeenCalledTimes(1); // asked once, then answered from the cache
        }
      } finally {
        findOne.mockRestore();
      }
      await t
        .http()
        .get(`/api/v1/webhooks/${other.campaignId}/events`)
        .set('Authorization', `Bearer ${me.token}`)
        .expect(403);
    });

    it('answer 403, not 500, for an upload to a campaign deleted since it was looked up', async () => {
      const me = await t.given.caller();
      const upload = () =>
        t
          .http()
          .post(UPLOAD)
          .set('Authorization', `Bearer ${me.token}`)
          .send(uploadBody(me.campaignId, phones(3, '305555')));
      await t
        .http()
        .get(`/api/v1/webhooks/${me.campaignId}/events`)
        .set('Authorization', `Bearer ${me.token}`)
        .expect(200);
      await t.db.query('DELETE FROM campaign WHERE id = $1', [me.campaignId]);
      const res = await upload().expect(403);
      expect(res.body).toEqual({ error: 'forbidden', message: expect.any(String) });
      const rows = await t.db.query(
        'SELECT (SELECT count(*) FROM lead_import WHERE campaign_id = $1)::int AS imports, (SELECT count(*) FROM lead WHERE campaign_id = $1)::int AS leads',
        [me.campaignId],
      );
      expect(rows[0]).toEqual({ imports: 0, leads: 0 });
    });
  });

  describe('a client that aborts its upload', () => {
    it('is logged once at info level, not as an error with a stack', async () => {
      const { api, env, base, port } = await apiProcess('abort');
      try {
        const { accountId, campaignId } = await givenCampaign(db, 'Abort');
        const token = await tokenFor(base, env, accountId);
        const body = JSON.stringify(uploadBody(campaignId, phones(20, '415555')));
        for (let i = 0; i < 3; i++) {
          const connection = await RawConnection.open(port);
          connection.write(uploadHead(token, Buffer.byteLength(body)) + body.slice(0, 30));
          await sleep(200);
          connection.destroy();
        }
        await eventually(async () => {
          expect(api.output.match(/client closed the connection/g)?.length).toBe(3);
        }, 10_000);
        const errors = api.output.split('\n').filter((line) => /"level":(50|60)/.test(line));
        expect(errors).toEqual([]);
        expect(api.output).not.toMatch(/"stack"/);
      } finally {
        expect(await api.stop()).toBe(0);
      }
    }, 60_000);
  });
});
