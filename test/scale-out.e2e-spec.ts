import request from 'supertest';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from './support/env';
import { givenCampaign, runCli, ServiceProcess } from './support/processes';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';

/**
 * The service as it scales out: one API process without a worker and two worker processes
 * (`node dist/main.js`, `node dist/worker.js`), sharing PostgreSQL and Redis.
 */
describe('Scale-out: an API process and two worker processes', () => {
  const env = {
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-scale`,
    LOG_LEVEL: 'debug',
    WEBHOOK_SWEEP_INTERVAL_MS: '2000',
  };
  let api: ServiceProcess;
  let workers: ServiceProcess[];
  let receiver: WebhookReceiver;
  let db: Client;
  let base: string;

  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    receiver = await new WebhookReceiver().start();
    api = new ServiceProcess('main.js', {
      ...env,
      RUN_WORKER: 'false',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    workers = [new ServiceProcess('worker.js', env), new ServiceProcess('worker.js', env)];
    base = (await api.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1];
    await Promise.all(workers.map((w) => w.waitForOutput(/Delivery worker running/)));
  });

  afterAll(async () => {
    await Promise.all([api, ...workers].map((p) => p?.stop()));
    await receiver.stop();
    await db.end();
  });

  it('delivers each event exactly once, keeps secrets out of every log line, and shuts down cleanly', async () => {
    const { accountId, campaignId } = await givenCampaign(db, 'Scale');
    const campaign = { id: campaignId };
    const account = { id: accountId };
    const cli = (...args: string[]) => runCli(env, ...args);
    const apiKey = cli('api-key', 'create', '--account', String(account.id)).api_key as string;
    const { secret } = cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      receiver.url,
      '--events',
      'lead.created',
    ) as { secret: string };

    const token = (
      await request(base).post('/api/v1/auth/api-key/token').send({ api_key: apiKey }).expect(200)
    ).body.access_token as string;
    const leads = Array.from({ length: 600 }, (_, i) => ({
      phone: `+1646555${String(i).padStart(4, '0')}`,
    }));
    const res = await request(base)
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${token}`)
      .send({ campaign_id: campaign.id, compliance_acknowledged: true, leads })
      .expect(202);
    expect(res.body.valid_count).toBe(600);

    const received = await receiver.waitFor(600, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received).toHaveLength(600);
    expect(new Set(received.map((w) => w.headers['webhook-id'])).size).toBe(600);
    received.forEach((w) => verifyWebhook(secret, w));
    const { rows } = await db.query(
      `SELECT count(*)::int AS attempts, count(DISTINCT a.delivery_id)::int AS deliveries
         FROM webhook_delivery_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id JOIN webhook_event e ON e.id = d.event_id
        WHERE e.campaign_id = $1`,
      [campaign.id],
    );
    expect(rows[0]).toEqual({ attempts: 600, deliveries: 600 });

    const codes = await Promise.all([api, ...workers].map((p) => p.stop()));
    expect(codes).toEqual([0, 0, 0]);
    const logs = [api, ...workers].map((p) => p.output).join('\n');
    expect(logs).toContain('request completed');
    for (const secretValue of [apiKey, token, secret, secret.slice('whsec_'.length)]) {
      expect(logs).not.toContain(secretValue);
    }
  }, 90_000);
});

describe('Graceful shutdown of a worker mid-attempt (docs/operations.md)', () => {
  it('finishes the delivery attempt under way, records it, and exits 0', async () => {
    const env = { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-shutdown`, LOG_LEVEL: 'info' };
    const db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    const receiver = await new WebhookReceiver().start();
    receiver.behaviour = { status: 200, delayMs: 2000 };
    const worker = new ServiceProcess('worker.js', env);
    try {
      await worker.waitForOutput(/Delivery worker running/);
      const { campaignId } = await givenCampaign(db, 'Shutdown');
      const campaign = { id: campaignId };
      const cli = (...args: string[]) => runCli(env, ...args);
      const endpoint = cli(
        'endpoint',
        'create',
        '--campaign',
        String(campaign.id),
        '--url',
        receiver.url,
        '--events',
        'call.completed',
      );
      cli(
        'event',
        'emit',
        '--campaign',
        String(campaign.id),
        '--type',
        'call.completed',
        '--data',
        '{"call_id": 1}',
      );

      await receiver.waitFor(1);
      const code = await worker.stop(); // SIGTERM while the receiver is still answering
      expect(code).toBe(0);
      const { rows } = await db.query(
        'SELECT success, status_code, duration_ms FROM webhook_delivery_attempt WHERE endpoint_id = $1',
        [endpoint.id],
      );
      expect(rows).toEqual([{ success: true, status_code: 200, duration_ms: expect.any(Number) }]);
      expect(rows[0].duration_ms).toBeGreaterThanOrEqual(1900);
    } finally {
      await worker.stop();
      await receiver.stop();
      await db.end();
    }
  }, 60_000);
});
