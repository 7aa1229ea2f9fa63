import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp, type Caller, uploadBody } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { eventually } from './support/eventually';
import { parseExposition, valueOf, type Sample } from './support/prometheus-text';
import { STATE_QUERY, PARTITIONS_QUERY } from '../src/metrics/operational-state.repository';
import { MetricsServer } from '../src/metrics/metrics-server.service';
import { AttemptLog } from '../src/delivery/attempts/attempt-log.service';
import { UNKNOWN_OUTCOME } from '../src/delivery/attempts/attempt-records';

/** A TCP port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** GET on the metrics port: status, content type and body. */
function get(port: number, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const DURATION = 'campaign_api_http_request_duration_seconds';

describe('Prometheus metrics on METRICS_PORT (docs/operations.md#metrics)', () => {
  let t: TestApp;
  let metricsPort: number;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    metricsPort = await freePort();
    await receiver.start();
    t = await startTestApp({
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  describe('after a known workload', () => {
    let me: Caller;
    let endpointSecret: string;
    let samples: Sample[];
    let scrape: { status: number; type: string; body: string };
    let uploadResponse: Record<string, unknown>;

    beforeAll(async () => {
      // One token exchange, inside `caller()`.
      me = await t.given.caller();
      // The first request answered 200, the second 500 (retried: 200), every later one 200.
      receiver.behaviour = (index) => ({ status: index === 1 ? 500 : 200 });
      const endpoint = await t.given.endpoint(me.campaignId, receiver.url, ['lead.created']);
      endpointSecret = endpoint.secret;
      await t.given.endpoint(me.campaignId, `${receiver.url}/off`, ['lead.created'], {
        enabled: false,
      });
      const res = await t
        .http()
        .post('/api/v1/leads/upload')
        .set('Authorization', `Bearer ${me.token}`)
        .send(
          uploadBody(me.campaignId, [
            { phone: '(415) 555-2671', first_name: 'Ada' },
            { phone: '+1 415 555 2671' },
            { phone: '+442079460958' },
            { phone: 'not a phone' },
          ]),
        )
        .expect(202);
      uploadResponse = res.body;
      await t.http().get('/metrics').expect(404);
      await eventually(async () => {
        const rows: Array<{ status: string }> = await t.db.query(
          'SELECT status FROM webhook_delivery WHERE endpoint_id = $1',
          [endpoint.id],
        );
        expect(rows.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
        const s = parseExposition((await get(metricsPort, '/metrics')).body);
        expect(valueOf(s, 'campaign_api_delivery_attempt_duration_seconds_count')).toBe(3);
      });
      scrape = await get(metricsPort, '/metrics');
      samples = parseExposition(scrape.body);
    });

    it('serves the text exposition format on the metrics port', () => {
      expect(scrape.status).toBe(200);
      expect(scrape.type).toContain('text/plain');
      expect(scrape.body).toContain('# TYPE campaign_api_delivery_attempts_total counter');
      expect(scrape.body).toContain(`# TYPE ${DURATION} histogram`);
    });

    it('counts the leads of the upload as its 202 body does', () => {
      expect(uploadResponse).toMatchObject({
        received_count: 4,
        valid_count: 3,
        invalid_count: 1,
        duplicate_count: 1,
      });
      const api = { source: 'api' };
      expect(valueOf(samples, 'campaign_api_leads_received_total', api)).toBe(4);
      expect(valueOf(samples, 'campaign_api_leads_valid_total', api)).toBe(3);
      expect(valueOf(samples, 'campaign_api_leads_invalid_total', api)).toBe(1);
      expect(valueOf(samples, 'campaign_api_leads_duplicate_total', api)).toBe(1);
    });

    it('counts each delivery attempt once by outcome class, with its latency and the first successes’ lag', () => {
      expect(receiver.received).toHaveLength(3);
      const attempts = samples.filter((s) => s.name === 'campaign_api_delivery_attempts_total');
      expect(Object.fromEntries(attempts.map((s) => [s.labels.outcome, s.value]))).toEqual({
        success: 2,
        '5xx': 1,
      });
      expect(valueOf(samples, 'campaign_api_delivery_attempt_duration_seconds_count')).toBe(3);
      expect(valueOf(samples, 'campaign_api_delivery_lag_seconds_count')).toBe(2);
      expect(valueOf(samples, 'campaign_api_delivery_lag_seconds_sum')).toBeGreaterThan(0);
    });

    it('times requests by route template and status class', () => {
      const count = `${DURATION}_count`;
      expect(
        valueOf(samples, count, {
          method: 'POST',
          route: '/api/v1/auth/api-key/token',
          status_class: '2xx',
        }),
      ).toBe(1);
      expect(
        valueOf(samples, count, {
          method: 'POST',
          route: '/api/v1/leads/upload',
          status_class: '2xx',
        }),
      ).toBe(1);
      expect(
        valueOf(samples, count, { method: 'GET', route: 'unmatched', status_class: '4xx' }),
      ).toBe(1);
    });

    it('reports the outbox, the endpoints, the queue and the pool at scrape time', () => {
      expect(valueOf(samples, 'campaign_api_delivery_backlog_pending')).toBe(0);
      expect(valueOf(samples, 'campaign_api_delivery_backlog_due')).toBe(0);
      expect(valueOf(samples, 'campaign_api_delivery_backlog_oldest_due_age_seconds')).toBe(0);
      expect(valueOf(samples, 'campaign_api_endpoints_failing')).toBe(0);
      expect(valueOf(samples, 'campaign_api_endpoints_disabled')).toBe(1);
      expect(valueOf(samples, 'campaign_api_spreadsheet_imports_running')).toBe(0);
      expect(valueOf(samples, 'campaign_api_recoveries_running')).toBe(0);
      for (const state of ['waiting', 'delayed', 'active', 'failed']) {
        expect(
          valueOf(samples, 'campaign_api_queue_jobs', { queue: 'webhook-delivery', state }),
        ).toBe(0);
      }
      expect(valueOf(samples, 'campaign_api_attempt_partitions')).toBeGreaterThan(0);
      expect(valueOf(samples, 'campaign_api_attempt_partitions_size_bytes')).toBeGreaterThan(0);
      expect(valueOf(samples, 'campaign_api_db_pool_max_connections')).toBe(10);
      expect(
        valueOf(samples, 'campaign_api_db_pool_connections', { state: 'idle' }) +
          valueOf(samples, 'campaign_api_db_pool_connections', { state: 'in_use' }),
      ).toBeGreaterThan(0);
      expect(valueOf(samples, 'campaign_api_db_pool_waiting_clients')).toBe(0);
      expect(samples.some((s) => s.name === 'campaign_api_metrics_collection_errors_total')).toBe(
        false,
      );
    });

    it("exports Node's runtime metrics", () => {
      expect(valueOf(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(samples.some((s) => s.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
    });

    it('carries no URL, account, campaign, lead or secret in any label', async () => {
      const [{ account }] = await t.db.query('SELECT name AS account FROM account WHERE id = $1', [
        me.accountId,
      ]);
      const [{ campaign }] = await t.db.query(
        'SELECT name AS campaign FROM campaign WHERE id = $1',
        [me.campaignId],
      );
      const forbidden = [
        receiver.url,
        new URL(receiver.url).host,
        account as string,
        campaign as string,
        me.apiKey,
        me.token,
        endpointSecret,
        '555',
        '2079460958',
      ];
      const values = samples.flatMap((s) => Object.values(s.labels));
      expect(values.length).toBeGreaterThan(0);
      for (const value of values) {
        for (const secret of forbidden) expect(value).not.toContain(secret);
        expect(value).not.toMatch(/^https?:/);
      }
      const ours = samples.filter((s) => s.name.startsWith('campaign_api_'));
      const labelNames = new Set(ours.flatMap((s) => Object.keys(s.labels)));
      expect([...labelNames].sort()).toEqual(
        ['le', 'method', 'outcome', 'queue', 'route', 'source', 'state', 'status_class'].sort(),
      );
    });
  });

  it('serves no /metrics on the public port, and only /metrics on the metrics port', async () => {
    const res = await t.http().get('/metrics').expect(404);
    expect(res.body.error).toBe('not_found');
    expect((await get(metricsPort, '/')).status).toBe(404);
    expect((await get(metricsPort, '/api/v1/auth/api-key/token')).status).toBe(404);
    expect(t.app.get(MetricsServer).address()?.port).toBe(metricsPort);
  });

  it('counts an attempt closed as of unknown outcome once, as outcome other', async () => {
    const me = await t.given.caller();
    const { id: endpointId } = await t.given.endpoint(me.campaignId, receiver.url, [
      'lead.created',
    ]);
    const other = async () =>
      parseExposition((await get(metricsPort, '/metrics')).body).find(
        (s) => s.name === 'campaign_api_delivery_attempts_total' && s.labels.outcome === 'other',
      )?.value ?? 0;
    const before = await other();
    const [{ id }] = await t.db.query(
      `INSERT INTO webhook_delivery_attempt (endpoint_id, message_id, attempted_at, duration_ms, success)
       VALUES ($1, 'ping_abandoned', now() - interval '10 minutes', 0, false) RETURNING id`,
      [endpointId],
    );
    // Closed by this call, or by the sweeper (every 500 ms here) just before it: once either way.
    const closedHere = await t.app.get(AttemptLog).closeAbandoned();
    expect([0, 1]).toContain(closedHere);
    const [row] = await t.db.query(
      'SELECT error FROM webhook_delivery_attempt WHERE id = $1 AND finished_at IS NOT NULL',
      [id],
    );
    expect(row?.error).toBe(UNKNOWN_OUTCOME);
    expect(await t.app.get(AttemptLog).closeAbandoned()).toBe(0);
    expect((await other()) - before).toBe(1);
  });

  it('reads the outbox and the running jobs through indexes, never by scanning their tables', async () => {
    const plan = await t.db.transaction(async (manager) => {
      // Only an index can avoid the (penalised) sequential scan: a plan without one shows it.
      await manager.query('SET LOCAL enable_seqscan = off');
      const [row] = await manager.query(`EXPLAIN (FORMAT JSON) ${STATE_QUERY}`);
      return JSON.stringify(row['QUERY PLAN']);
    });
    const scans = [...plan.matchAll(/"Node Type":"([^"]+)","[^}]*?"Relation Name":"([^"]+)"/g)];
    const scanOf = (table: string) => scans.filter((m) => m[2] === table).map((m) => m[1]);
    expect(scanOf('webhook_delivery').length).toBe(3);
    expect(scanOf('webhook_delivery')).not.toContain('Seq Scan');
    expect(plan).toContain('idx_webhook_delivery_pending');
    expect(scanOf('spreadsheet_import')).not.toContain('Seq Scan');
    expect(scanOf('delivery_recovery')).not.toContain('Seq Scan');
    // The partition list is a catalog look-up; it runs.
    const [partitions] = await t.db.query(PARTITIONS_QUERY);
    expect(partitions.partitions).toBeGreaterThan(0);
  });
});
