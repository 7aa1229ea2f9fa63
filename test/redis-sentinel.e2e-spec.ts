import request from 'supertest';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from './support/env';
import { eventually } from './support/eventually';
import { givenCampaign, runCli, ServiceProcess } from './support/processes';
import { LocalRedisSentinel, redisCli } from './support/redis-servers';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';

const LEADS = 4000;
const UPLOADS = 2;

/**
 * The service under Redis Sentinel (docs/operations.md#redis-cluster-and-sentinel): an API
 * process and a worker process (`node dist/…`) reach a primary through three sentinels
 * (`REDIS_URL=redis+sentinel://…`); the primary is killed in the middle of a dispatch and the
 * sentinels promote its replica. Whatever Redis lost with the primary, the deliveries are in
 * PostgreSQL: the worker reconnects to the new primary, the sweeper re-queues what the queue
 * lost, and every delivery ends with a recorded successful attempt (at least once).
 */
describe('Redis Sentinel failover', () => {
  let sentinel: LocalRedisSentinel | undefined;
  let receiver: WebhookReceiver;
  let db: Client;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    receiver = await new WebhookReceiver().start();
    // Each answer takes 10 ms: with 10 attempts at once the dispatch lasts a few seconds.
    receiver.behaviour = { status: 204, delayMs: 10 };
    sentinel = await LocalRedisSentinel.start();
  }, 60_000);

  afterAll(async () => {
    for (const p of processes) p.signal('SIGKILL');
    await sentinel?.stop();
    await receiver?.stop();
    await db?.end();
  }, 60_000);

  it('loses no delivery when the primary is killed mid-dispatch: every webhook sent and recorded after the replica is promoted', async () => {
    const set = sentinel!;
    const env = {
      REDIS_URL: set.url,
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-sentinel`,
      WEBHOOK_SWEEP_INTERVAL_MS: '1000',
      WEBHOOK_WORKER_CONCURRENCY: '10',
      WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,1s,2s',
      LOG_LEVEL: 'info',
    };
    const api = new ServiceProcess('main.js', {
      ...env,
      RUN_WORKER: 'false',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    processes.push(api);
    const base = (await api.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1];
    // The namespace is claimed on the primary the sentinels name.
    const claim = await redisCli(
      '-p',
      String(set.primary.port),
      'GET',
      `${env.QUEUE_PREFIX}:deployment`,
    );
    expect(claim.trim()).toMatch(/^[0-9a-f]{32}$/);
    expect(api.output).not.toContain('Could not claim');

    const { accountId, campaignId } = await givenCampaign(db, 'Sentinel');
    const cli = (...args: string[]) => runCli(env, ...args);
    const apiKey = cli('api-key', 'create', '--account', String(accountId)).api_key as string;
    const { secret } = cli(
      'endpoint', 'create', '--campaign', String(campaignId), '--url', receiver.url,
      '--events', 'lead.created',
    ) as { secret: string }; // prettier-ignore
    const token = (
      await request(base).post('/api/v1/auth/api-key/token').send({ api_key: apiKey }).expect(200)
    ).body.access_token as string;

    // Uploaded with no worker running: the jobs wait in the primary's queue.
    for (let u = 0; u < UPLOADS; u++) {
      const leads = Array.from({ length: LEADS / UPLOADS }, (_, i) => ({
        phone: `+1646555${String(u * (LEADS / UPLOADS) + i).padStart(4, '0')}`,
      }));
      const res = await request(base)
        .post('/api/v1/leads/upload')
        .set('Authorization', `Bearer ${token}`)
        .send({ campaign_id: campaignId, compliance_acknowledged: true, leads })
        .expect(202);
      expect(res.body.valid_count).toBe(LEADS / UPLOADS);
    }

    const worker = new ServiceProcess('worker.js', env);
    processes.push(worker);
    await worker.waitForOutput(/Delivery worker running/);

    // A quarter of the way through the dispatch, the primary dies.
    await receiver.waitFor(LEADS / 4, 60_000);
    await set.primary.kill('SIGKILL');
    const killedAt = Date.now();
    const copiesAtKill = receiver.received.length;
    await set.waitForPrimary(set.replica.port);
    const promotedAt = Date.now();

    const distinct = () => new Set(receiver.received.map((w) => String(w.headers['webhook-id'])));
    await eventually(async () => expect(distinct().size).toBe(LEADS), 120_000);
    const deliveredAt = Date.now();
    const firstAfterPromotion = receiver.received.find((w) => w.receivedAt >= promotedAt);

    // Every delivery has a recorded successful attempt, and no attempt is left open.
    await eventually(async () => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS deliveries,
                count(*) FILTER (WHERE d.status = 'succeeded')::int AS succeeded,
                count(*) FILTER (WHERE EXISTS (SELECT 1 FROM webhook_delivery_attempt a
                                                WHERE a.delivery_id = d.id AND a.success))::int AS with_success
           FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
          WHERE e.campaign_id = $1`,
        [campaignId],
      );
      expect(rows[0]).toEqual({ deliveries: LEADS, succeeded: LEADS, with_success: LEADS });
    }, 30_000);

    // Both processes stop cleanly on SIGTERM (the worker finishes and records its attempts).
    expect(await Promise.all([api.stop(), worker.stop()])).toEqual([0, 0]);

    const { rows: events } = await db.query(
      `SELECT e.id::text AS id FROM webhook_event e WHERE e.campaign_id = $1`,
      [campaignId],
    );
    // The receiver saw exactly the campaign's events, every one signed right.
    expect([...distinct()].sort()).toEqual(events.map((r: { id: string }) => r.id).sort());
    receiver.received.forEach((w) => verifyWebhook(secret, w));
    // Every copy the receiver got is recorded as an attempt: none was sent unrecorded.
    const { rows: attempts } = await db.query(
      `SELECT count(*)::int AS attempts,
              count(*) FILTER (WHERE a.success)::int AS successful,
              count(*) FILTER (WHERE a.finished_at IS NULL)::int AS unfinished
         FROM webhook_delivery_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id
         JOIN webhook_event e ON e.id = d.event_id
        WHERE e.campaign_id = $1`,
      [campaignId],
    );
    expect(attempts[0].unfinished).toBe(0);
    expect(attempts[0].successful).toBeGreaterThanOrEqual(LEADS);
    expect(attempts[0].attempts).toBeGreaterThanOrEqual(receiver.received.length);

    const duplicates = receiver.received.length - LEADS;
    // The figures of the run, for docs/operations.md (not asserted: timing varies by machine).
    process.stderr.write(
      `Sentinel failover: ${LEADS} deliveries; primary killed after ${copiesAtKill} copies; ` +
        `replica promoted ${promotedAt - killedAt} ms later; first copy after promotion ` +
        `${firstAfterPromotion ? firstAfterPromotion.receivedAt - killedAt : '-'} ms after the kill; ` +
        `all delivered ${deliveredAt - killedAt} ms after the kill; ` +
        `${receiver.received.length} copies, ${duplicates} duplicates; ` +
        `${attempts[0].attempts} attempts recorded (${attempts[0].successful} successful)\n`,
    );
  }, 240_000);
});
