import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { TEST_DATABASE_URL } from './support/env';
import { givenCampaign, runCli, ServiceProcess } from './support/processes';
import { startTestApp, uploadBody } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { tracingOn } from '../src/tracing/trace-hooks';

/** One span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, unknown> }>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};
type OtlpAttribute = { key: string; value: OtlpValue };

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((a) => [a.key, valueOf(a.value)]));
}

/**
 * A local OTLP/HTTP trace receiver (`POST /v1/traces`, JSON encoding): keeps every request's
 * raw text (for the secrets check) and the spans it carried.
 */
class OtlpReceiver {
  readonly bodies: string[] = [];
  readonly spans: ExportedSpan[] = [];
  private server?: Server;

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.statusCode = 404;
          return res.end();
        }
        this.bodies.push(text);
        const payload = JSON.parse(text) as {
          resourceSpans?: Array<{
            scopeSpans?: Array<{
              scope?: { name?: string };
              spans?: Array<{
                traceId: string;
                spanId: string;
                parentSpanId?: string;
                name: string;
                kind: number;
                attributes?: OtlpAttribute[];
                links?: Array<{ traceId: string; spanId: string; attributes?: OtlpAttribute[] }>;
              }>;
            }>;
          }>;
        };
        for (const resource of payload.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              this.spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                scope: scope.scope?.name ?? '',
                attributes: attributesOf(span.attributes),
                links: (span.links ?? []).map((link) => ({
                  traceId: link.traceId,
                  spanId: link.spanId,
                  attributes: attributesOf(link.attributes),
                })),
              });
            }
          }
        }
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** Resolves once `predicate` holds for the spans received so far; rejects after `timeoutMs`. */
  async waitFor(predicate: (spans: ExportedSpan[]) => boolean, timeoutMs = 40_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.spans)) {
      if (Date.now() > deadline) {
        throw new Error(`spans never matched; got ${this.spans.map((s) => s.name).join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

/** The spans of `trace` from `root` down, `root` included. */
function subtree(spans: ExportedSpan[], root: ExportedSpan): ExportedSpan[] {
  const below = [root];
  for (let i = 0; i < below.length; i += 1) {
    below.push(...spans.filter((s) => s.parentSpanId === below[i].spanId));
  }
  return below;
}

/** The chain of span names from `span` up to its trace's root. */
function ancestry(spans: ExportedSpan[], span: ExportedSpan): string[] {
  const names: string[] = [];
  let current: ExportedSpan | undefined = span;
  while (current) {
    names.push(current.name);
    const parentId: string | undefined = current.parentSpanId;
    current = parentId ? spans.find((s) => s.spanId === parentId) : undefined;
  }
  return names;
}

/**
 * Runs the compiled CLI without blocking this process (its spans go to the receiver this
 * process serves); returns its JSON.
 */
async function runTracedCli(env: Record<string, string>, ...args: string[]): Promise<unknown> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(__dirname, '..', 'dist', 'cli.js'), ...args],
    { env: { ...process.env, ...env } },
  );
  return JSON.parse(stdout) as unknown;
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

/**
 * Traces from upload to delivery attempt (docs/operations.md#traces): the service runs as a
 * process of its own (`node dist/main.js`, so the SDK loads before everything else) with the
 * `OTEL_*` variables pointing at a local OTLP receiver, and delivers to a local webhook
 * receiver that fails the first request.
 */
describe('Tracing: one trace from upload to delivery attempts', () => {
  const lead = {
    phone: '+14155552671',
    email: 'grace.hopper.tracing@example.com',
    first_name: 'Grace',
  };
  let otlp: OtlpReceiver;
  let receiver: WebhookReceiver;
  let api: ServiceProcess;
  let db: Client;
  let base: string;
  let env: Record<string, string>;
  /** The operator CLI, untraced, for setting up (it blocks this process, and so the receiver). */
  const cli = (...args: string[]) =>
    runCli({ QUEUE_PREFIX: env.QUEUE_PREFIX, OTEL_TRACES_EXPORTER: 'none' }, ...args);

  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    otlp = await new OtlpReceiver().start();
    receiver = await new WebhookReceiver().start();
    // The first request fails with 500; the retry, 1 s later, and every other one succeed.
    receiver.behaviour = (index) => ({ status: index === 0 ? 500 : 204 });
    env = {
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-tracing`,
      WEBHOOK_RETRY_SCHEDULE: '1s',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'campaign-api-tracing-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    // `info`: the shutdown's steps are logged.
    api = new ServiceProcess('main.js', {
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    base = (await api.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 60_000))[1];
  }, 90_000);

  afterAll(async () => {
    await api?.stop();
    await receiver?.stop();
    await otlp?.stop();
    await db?.end();
  });

  it('follows an upload through HTTP, PostgreSQL and BullMQ to each delivery attempt, retry included, and links every attempt to the upload', async () => {
    const { accountId, campaignId } = await givenCampaign(db, 'Tracing');
    const apiKey = cli('api-key', 'create', '--account', String(accountId)).api_key as string;
    const endpoint = cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaignId),
      '--url',
      receiver.url,
      '--events',
      'lead.created',
    ) as { id: number; secret: string };

    const token = (
      await request(base).post('/api/v1/auth/api-key/token').send({ api_key: apiKey }).expect(200)
    ).body.access_token as string;
    const res = await request(base)
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${token}`)
      .send({
        campaign_id: campaignId,
        compliance_acknowledged: true,
        leads: [lead, { phone: '+14155552672' }],
      })
      .expect(202);
    expect(res.body.valid_count).toBe(2);
    // A query string with a token and a lead's email is never recorded.
    await request(base).get(
      `/api/v1/webhooks?token=${encodeURIComponent(token)}&email=${encodeURIComponent(lead.email)}`,
    );

    await receiver.waitFor(3, 40_000);
    // Every attempt, and every span up to the upload's (a job's span ends after its attempts).
    const reachesUpload = (spans: ExportedSpan[], span: ExportedSpan) =>
      ancestry(spans, span).includes('POST /api/v1/leads/upload');
    await otlp.waitFor((spans) => {
      const attempts = spans.filter((s) => s.name === 'webhook attempt');
      return (
        attempts.length >= 3 &&
        attempts.every((a) => reachesUpload(spans, a)) &&
        spans.some((s) => s.attributes['url.path'] === '/api/v1/webhooks')
      );
    });
    const spans = [...otlp.spans];

    // The upload's HTTP server span, and its trace.
    const http = spans.find(
      (s) => s.kind === SPAN_KIND_SERVER && s.attributes['url.path'] === '/api/v1/leads/upload',
    )!;
    expect(http).toMatchObject({
      name: 'POST /api/v1/leads/upload',
      attributes: { 'http.route': '/api/v1/leads/upload', 'http.response.status_code': 202 },
    });
    expect(http.parentSpanId).toBeUndefined();
    // Traces start only at requests, CLI commands and BullMQ jobs: no stray Redis or SQL roots
    // (the worker's polling, the sweeper's queries).
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.filter((s) => s.kind !== SPAN_KIND_SERVER && s.scope !== 'bullmq')).toEqual([]);
    const upload = subtree(spans, http);
    const uploadIds = new Set(upload.map((s) => s.spanId));

    // PostgreSQL under it: the transaction's statements, parametrized.
    const statements = upload
      .filter((s) => s.scope.includes('instrumentation-pg'))
      .map((s) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? ''));
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^INSERT INTO webhook_event/),
        expect.stringMatching(/^COMMIT/),
      ]),
    );
    expect(statements.some((sql) => /INSERT INTO "?lead"? /.test(sql))).toBe(true);
    // BullMQ: the deliveries queued from the request.
    expect(upload.map((s) => s.name)).toContain('addBulk webhook-delivery');

    // The events keep the upload's trace context.
    const { rows: events } = await db.query(
      `SELECT e.id, e.trace_context FROM webhook_event e WHERE e.campaign_id = $1 ORDER BY e.id`,
      [campaignId],
    );
    expect(events).toHaveLength(2);
    const [, traceId, recordedBy] = (events[0].trace_context.traceparent as string).split('-');
    expect(traceId).toBe(http.traceId);
    expect(uploadIds.has(recordedBy)).toBe(true);
    expect(events.map((e) => e.trace_context)).toEqual([
      events[0].trace_context,
      events[0].trace_context,
    ]);

    // Three attempts: the two first ones (one failed with 500) and the retry.
    const attempts = spans.filter((s) => s.name === 'webhook attempt');
    expect(attempts).toHaveLength(3);
    const eventIds = events.map((e) => e.id as string);
    for (const attempt of attempts) {
      expect(attempt.kind).toBe(SPAN_KIND_CLIENT);
      expect(eventIds).toContain(attempt.attributes['webhook.id']);
      expect(attempt.attributes).toMatchObject({
        'webhook.endpoint_id': endpoint.id,
        'webhook.event_type': 'lead.created',
        'webhook.duration_ms': expect.any(Number),
        'webhook.delivery_id': expect.any(Number),
      });
      // Linked to the span that recorded the event, in the upload's trace ...
      expect(attempt.links).toEqual([
        { traceId: http.traceId, spanId: recordedBy, attributes: { 'webhook.link': 'cause' } },
      ]);
      // ... and, through BullMQ's job context, in that trace itself, under the job that ran it.
      expect(attempt.traceId).toBe(http.traceId);
      expect(ancestry(spans, attempt)).toEqual(
        expect.arrayContaining(['process webhook-delivery', 'POST /api/v1/leads/upload']),
      );
    }
    const outcomes = attempts
      .map((a) => [
        a.attributes['webhook.attempt_number'],
        a.attributes['http.response.status_code'],
        a.attributes['webhook.outcome'],
      ])
      .sort((x, y) => String(x).localeCompare(String(y)));
    expect(outcomes).toEqual([
      [1, 204, 'succeeded'],
      [1, 500, 'failed'],
      [2, 204, 'succeeded'],
    ]);
    const failed = attempts.find((a) => a.attributes['webhook.outcome'] === 'failed')!;
    const retry = attempts.find((a) => a.attributes['webhook.attempt_number'] === 2)!;
    expect(retry.attributes['webhook.id']).toBe(failed.attributes['webhook.id']);
    expect(failed.attributes['error.type']).toBe('500');

    // The database agrees: three attempts, two deliveries succeeded.
    const { rows: deliveries } = await db.query(
      `SELECT d.status, d.attempt_count FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
        WHERE e.campaign_id = $1 ORDER BY d.attempt_count`,
      [campaignId],
    );
    expect(deliveries).toEqual([
      { status: 'succeeded', attempt_count: 1 },
      { status: 'succeeded', attempt_count: 2 },
    ]);

    // No span carries the API key, the JWT, the signing secret or the lead's contact.
    const exported = otlp.bodies.join('\n');
    expect(exported).toContain('webhook attempt');
    for (const secret of [
      apiKey,
      token,
      token.split('.')[2],
      endpoint.secret,
      endpoint.secret.slice('whsec_'.length),
      lead.phone,
      lead.phone.slice(2),
      lead.email,
      encodeURIComponent(lead.email),
      lead.first_name,
    ]) {
      expect(exported).not.toContain(secret);
    }
  }, 120_000);

  it("continues a caller's W3C trace context: the request's server span is a child of the caller's span", async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    await request(base)
      .get('/api/v1/webhooks/1/events?limit=5')
      .set('traceparent', `00-${callerTrace}-${callerSpan}-01`)
      .expect(401);
    await otlp.waitFor((spans) => spans.some((s) => s.traceId === callerTrace));
    const server = otlp.spans.filter(
      (s) => s.traceId === callerTrace && s.kind === SPAN_KIND_SERVER,
    );
    expect(server).toEqual([
      expect.objectContaining({
        name: 'GET /api/v1/webhooks/:campaign_id/events',
        kind: SPAN_KIND_SERVER,
        parentSpanId: callerSpan,
        attributes: expect.objectContaining({
          'http.route': '/api/v1/webhooks/:campaign_id/events',
          'url.path': '/api/v1/webhooks/1/events',
          'http.response.status_code': 401,
        }),
      }),
    ]);
  });

  it('links the attempts of an event a CLI command recorded to that command', async () => {
    const { campaignId } = await givenCampaign(db, 'Tracing CLI');
    cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaignId),
      '--url',
      receiver.url,
      '--events',
      'call.completed',
    );
    const before = receiver.received.length;
    await runTracedCli(
      env,
      'event',
      'emit',
      '--campaign',
      String(campaignId),
      '--type',
      'call.completed',
      '--data',
      '{"call_id": 7}',
    );
    await receiver.waitFor(before + 1, 40_000);
    const { rows } = await db.query(
      `SELECT e.id, e.trace_context FROM webhook_event e WHERE e.campaign_id = $1`,
      [campaignId],
    );
    expect(rows).toHaveLength(1);
    await otlp.waitFor((spans) =>
      spans.some((s) => s.name === 'webhook attempt' && s.attributes['webhook.id'] === rows[0].id),
    );
    const command = otlp.spans.find((s) => s.name === 'cli event emit')!;
    expect(command.parentSpanId).toBeUndefined();
    const [, traceId, spanId] = (rows[0].trace_context.traceparent as string).split('-');
    expect({ traceId, spanId }).toEqual({ traceId: command.traceId, spanId: command.spanId });
    const attempt = otlp.spans.find(
      (s) => s.name === 'webhook attempt' && s.attributes['webhook.id'] === rows[0].id,
    )!;
    expect(attempt.links.map((l) => [l.traceId, l.spanId])).toEqual([
      [command.traceId, command.spanId],
    ]);
    expect(attempt.attributes).toMatchObject({
      'http.response.status_code': 204,
      'webhook.outcome': 'succeeded',
    });
  }, 90_000);

  it('sends its last spans as the graceful shutdown’s last step and exits 0', async () => {
    await request(base).get('/api/v1/before-shutdown').expect(404);
    expect(await api.stop()).toBe(0);
    expect(api.output).toMatch(/traces: done after \d+ ms/);
    expect(otlp.spans.some((s) => s.attributes['url.path'] === '/api/v1/before-shutdown')).toBe(
      true,
    );
  }, 60_000);
});

describe('Tracing off (no OTEL_* variable)', () => {
  it('stores no trace context with the events and delivers them as before', async () => {
    const t = await startTestApp();
    const receiver = await new WebhookReceiver().start();
    try {
      expect(tracingOn()).toBe(false);
      const me = await t.given.caller();
      await t.given.endpoint(me.campaignId, receiver.url, ['lead.created']);
      await t
        .http()
        .post('/api/v1/leads/upload')
        .set('Authorization', `Bearer ${me.token}`)
        .send(uploadBody(me.campaignId, [{ phone: '+14155552673' }]))
        .expect(202);
      await receiver.waitFor(1);
      const rows = await t.db.query(
        'SELECT trace_context FROM webhook_event WHERE campaign_id = $1',
        [me.campaignId],
      );
      expect(rows).toEqual([{ trace_context: null }]);
    } finally {
      await receiver.stop();
      await t.close();
    }
  });
});
