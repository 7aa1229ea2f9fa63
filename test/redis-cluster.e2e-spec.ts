import request from 'supertest';
import { startTestApp, type TestApp, uploadBody } from './support/test-app';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';
import { givenUser, SESSION } from './support/dashboard';
import { eventually } from './support/eventually';
import { LocalRedisCluster, redisCli } from './support/redis-servers';
import { DeploymentIdentity } from '../src/database/deployment-identity';

const LEADS = 120;

/**
 * The service on a Redis Cluster (docs/operations.md#redis-cluster-and-sentinel): a local
 * cluster of three primaries, `REDIS_URL=redis+cluster://…`, and everything that uses Redis
 * working on it: the delivery queue, the rate limits, the sign-in limits, the namespace claim
 * and the readiness check.
 */
describe('Redis Cluster', () => {
  let cluster: LocalRedisCluster;
  let t: TestApp | undefined;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    cluster = await LocalRedisCluster.start(3);
    t = await startTestApp({
      REDIS_URL: cluster.url,
      WEBHOOK_SWEEP_INTERVAL_MS: '1000',
      RATE_LIMIT_TOKEN_PER_MIN: '4',
      RATE_LIMIT_API_PER_MIN: '30',
      RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP: '3',
      // The token test takes an address of its own through X-Forwarded-For.
      TRUST_PROXY: '127.0.0.1,::1',
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await cluster?.stop();
    await receiver?.stop();
  }, 60_000);

  /** Keys matching `pattern` on each primary, by port. */
  const keysByNode = async (pattern: string) =>
    Object.fromEntries(
      await Promise.all(
        cluster.nodes.map(async (n) => {
          const out = await redisCli('-p', String(n.port), '--scan', '--pattern', pattern);
          return [n.port, out.split('\n').filter(Boolean)] as const;
        }),
      ),
    );

  it('delivers every uploaded lead through the cluster, with the queue’s keys in one slot', async () => {
    const app = t!;
    const accountId = await app.given.account();
    const campaignId = await app.given.campaign(accountId);
    const { key } = await app.given.apiKey(accountId);
    const { id: endpointId, secret } = await app.given.endpoint(campaignId, receiver.url, [
      'lead.created',
    ]);
    const token = await app.given.token(key);

    const res = await app
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${token}`)
      .send(
        uploadBody(
          campaignId,
          Array.from({ length: LEADS }, (_, i) => ({
            phone: `+1646555${String(i).padStart(4, '0')}`,
          })),
        ),
      )
      .expect(202);
    expect(res.body.valid_count).toBe(LEADS);

    const received = await receiver.waitFor(LEADS, 60_000);
    const ids = new Set(received.map((w) => String(w.headers['webhook-id'])));
    expect(ids.size).toBe(LEADS);
    received.forEach((w) => expect(verifyWebhook(secret, w).type).toBe('lead.created'));
    // Every delivery succeeded, each with one recorded successful attempt.
    await eventually(async () => {
      const [counts] = await app.db.query(
        `SELECT count(*) FILTER (WHERE d.status = 'succeeded')::int AS succeeded,
                count(*)::int AS deliveries,
                (SELECT count(*)::int FROM webhook_delivery_attempt a
                  WHERE a.endpoint_id = $1 AND a.success) AS successful_attempts
           FROM webhook_delivery d WHERE d.endpoint_id = $1`,
        [endpointId],
      );
      expect(counts).toEqual({
        succeeded: LEADS,
        deliveries: LEADS,
        successful_attempts: LEADS,
      });
    });

    // BullMQ's keys carry the hash tag {namespace}: all of them on one primary, in one slot.
    const namespace = app.app.get(DeploymentIdentity).queuePrefix;
    const queueKeys = await keysByNode(`{${namespace}}:*`);
    const holders = Object.entries(queueKeys).filter(([, keys]) => keys.length > 0);
    expect(holders).toHaveLength(1);
    const keys = holders[0][1];
    expect(keys.some((k) => k.startsWith(`{${namespace}}:webhook-delivery:`))).toBe(true);
    const slots = new Set(
      await Promise.all(
        keys.map(async (k) =>
          (await redisCli('-p', holders[0][0], 'CLUSTER', 'KEYSLOT', k)).trim(),
        ),
      ),
    );
    expect(slots.size).toBe(1);
    // The namespace is claimed by this deployment.
    const claimed = await redisCli(
      '-c', '-p', String(cluster.nodes[0].port), 'GET', `${namespace}:deployment`,
    ); // prettier-ignore
    expect(claimed.trim()).toBe(app.app.get(DeploymentIdentity).id);

    // Readiness pings the cluster.
    const ready = await app.http().get('/health/ready').expect(200);
    expect(JSON.stringify(ready.body)).toContain('redis');
  }, 120_000);

  it('limits token exchanges per IP and requests per API key, counted in the cluster', async () => {
    const app = t!;
    const accountId = await app.given.account();
    const campaignId = await app.given.campaign(accountId);
    const { key } = await app.given.apiKey(accountId);
    const exchange = () =>
      app
        .http()
        .post('/api/v1/auth/api-key/token')
        .set('X-Forwarded-For', '203.0.113.41')
        .send({ api_key: key });
    const statuses: number[] = [];
    let token = '';
    for (let i = 0; i < 5; i++) {
      const res = await exchange();
      statuses.push(res.status);
      if (res.status === 200) token = res.body.access_token as string;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);

    const answers: number[] = [];
    for (let i = 0; i < 35; i++) {
      const res = await app
        .http()
        .get(`/api/v1/webhooks/${campaignId}/endpoints`)
        .set('Authorization', `Bearer ${token}`);
      answers.push(res.status);
      if (res.status === 429) {
        expect(res.body.error).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(answers.filter((s) => s === 200)).toHaveLength(30);
    expect(answers.slice(30)).toEqual([429, 429, 429, 429, 429]);

    const namespace = app.app.get(DeploymentIdentity).queuePrefix;
    const counters = Object.values(await keysByNode(`${namespace}:rate:*`)).flat();
    expect(counters.some((k) => k.startsWith(`${namespace}:rate:token:`))).toBe(true);
    expect(counters.some((k) => k.startsWith(`${namespace}:rate:api:key-`))).toBe(true);
  }, 60_000);

  it('refuses an email at one address after 3 sign-in attempts, counted in the cluster', async () => {
    const app = t!;
    const user = await givenUser(app);
    const attempt = (password: string) =>
      app.http().post(SESSION).set('X-CSRF-Token', 'sign-in').send({ email: user.email, password });
    for (let i = 0; i < 3; i++) await attempt(`wrong ${i}`).expect(401);
    const refused: request.Response = await attempt(user.password);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many sign-in attempts; retry after \d+ s$/),
    });
    const [audit] = await app.db.query(
      `SELECT count(*)::int AS failed FROM audit_log_entry
        WHERE action = 'session.sign_in_failed' AND actor_email = $1`,
      [user.email],
    );
    expect(audit.failed).toBe(3);
    const namespace = app.app.get(DeploymentIdentity).queuePrefix;
    const counters = Object.values(await keysByNode(`${namespace}:rate:sign-in:*`)).flat();
    expect(counters.length).toBeGreaterThan(0);
  }, 60_000);
  it('is not ready while the shard holding the queue’s keys has no primary, then ready and delivering again once it is back', async () => {
    const app = t!;
    await app.http().get('/health/ready').expect(200);
    const namespace = app.app.get(DeploymentIdentity).queuePrefix;
    const holder = await cluster.nodeOfKey(`{${namespace}}`);
    await holder.kill();
    try {
      // The other primaries still answer a PING; the queue's shard answers nothing (the
      // database is up: the 503 is Redis's).
      await eventually(async () => {
        const res = await app.http().get('/health/ready');
        expect({ status: res.status, error: res.body.error }).toEqual({
          status: 503,
          error: 'service_unavailable',
        });
      }, 10_000);
    } finally {
      await cluster.restart(holder);
    }
    await eventually(async () => {
      await app.http().get('/health/ready').expect(200);
    }, 30_000);

    // The worker takes jobs again: a lead uploaded now is delivered.
    const accountId = await app.given.account();
    const campaignId = await app.given.campaign(accountId);
    const { key } = await app.given.apiKey(accountId);
    const { secret } = await app.given.endpoint(campaignId, receiver.url, ['lead.created']);
    const token = await app.given.token(key);
    const before = receiver.received.length;
    await app
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${token}`)
      .send(uploadBody(campaignId, [{ phone: '+16465559999' }]))
      .expect(202);
    const [delivered] = (await receiver.waitFor(before + 1, 30_000)).slice(before);
    expect(verifyWebhook(secret, delivered).data.phone).toBe('+16465559999');
  }, 90_000);
});
