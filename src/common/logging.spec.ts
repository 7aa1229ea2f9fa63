import { Controller, Get, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LoggerModule, Logger as NestPinoLogger } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { applyGlobalPrefix, GLOBAL_PREFIX } from '../app.factory';
import { generateRequestId } from './http-conventions';
import { loggerParams, looksLikeSecret, redactUrl } from './logging';
import { installRequestLogging, shouldLogRequest } from './request-logging';

const API_KEY = `capi_${'A'.repeat(43)}`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

describe('redactUrl', () => {
  it('leaves a URL without a query string as it is', () => {
    expect(redactUrl('/api/v1/webhooks/1/events')).toBe('/api/v1/webhooks/1/events');
    expect(redactUrl(undefined)).toBeUndefined();
  });

  it('replaces every query value with [redacted], keeping plain names', () => {
    expect(redactUrl(`/api/v1/webhooks/1/events?api_key=${API_KEY}&access_token=${JWT}`)).toBe(
      '/api/v1/webhooks/1/events?api_key=[redacted]&access_token=[redacted]',
    );
    expect(redactUrl('/x?page=2&empty=&flag')).toBe(
      '/x?page=[redacted]&empty=[redacted]&[redacted]',
    );
  });

  it('redacts secret-shaped or odd parameter names and bare parameters', () => {
    expect(redactUrl(`/x?${API_KEY}`)).toBe('/x?[redacted]');
    expect(redactUrl(`/x?${API_KEY}=1`)).toBe('/x?[redacted]=[redacted]');
    expect(redactUrl(`/x?${JWT}=`)).toBe('/x?[redacted]=[redacted]');
    expect(redactUrl('/x?api%5Fkey=capi_x')).toBe('/x?[redacted]=[redacted]');
    expect(redactUrl('/x?a=1&&b=2')).toBe('/x?a=[redacted]&&b=[redacted]');
  });

  it('never lets a secret through, wherever it sits in the query', () => {
    for (const url of [
      `/x?token=${encodeURIComponent(API_KEY)}`,
      `/x?a=b=${API_KEY}`,
      `/x?a=1#${API_KEY}`,
      `/x?a=1?${JWT}`,
    ]) {
      const redacted = redactUrl(url);
      expect(redacted).not.toContain('capi_');
      expect(redacted).not.toContain('eyJ');
    }
  });
});

describe('looksLikeSecret', () => {
  it.each([API_KEY, `x-${API_KEY}`, 'whsec_abc', 'whsk_abc', JWT, 'eyJhbGciOiJIUzI1NiJ9', 'a.b.c'])(
    'recognises %s',
    (value) => expect(looksLikeSecret(value)).toBe(true),
  );

  it.each(['trace-abc.123', '0f8c5b8e-6f1c-4e1e-9a57-0a9d0f6f2f4e', 'req:42', 'a.b'])(
    'does not flag %s',
    (value) => expect(looksLikeSecret(value)).toBe(false),
  );
});

describe('shouldLogRequest', () => {
  const policy = { sampleRate: 0.01, slowMs: 1000 };
  it('always logs failed and slow requests', () => {
    const never = () => 0.999;
    expect(shouldLogRequest(404, 1, policy, never)).toBe(true);
    expect(shouldLogRequest(503, 1, policy, never)).toBe(true);
    expect(shouldLogRequest(200, 1000, policy, never)).toBe(true);
  });
  it('logs that share of ordinary requests', () => {
    expect(shouldLogRequest(200, 5, policy, () => 0.005)).toBe(true);
    expect(shouldLogRequest(200, 5, policy, () => 0.5)).toBe(false);
    expect(shouldLogRequest(204, 5, { sampleRate: 0, slowMs: 1000 }, () => 0)).toBe(false);
    expect(shouldLogRequest(200, 5, { sampleRate: 1, slowMs: 1000 }, () => 0.999)).toBe(true);
  });
});

describe('request logs (docs/operations.md#logs)', () => {
  @Controller('health')
  class ProbeHealthController {
    @Get('live')
    live(): object {
      return { status: 'ok' };
    }

    @Get('ready')
    ready(): object {
      return { status: 'ok' };
    }
  }

  @Controller('things')
  class ProbeThingsController {
    private readonly logger = new Logger('Things');

    @Get(':id')
    async one(): Promise<object> {
      await new Promise((resolve) => setImmediate(resolve));
      this.logger.log('looked a thing up');
      return {};
    }
  }

  type Line = {
    msg?: string;
    level?: number;
    request_id?: string;
    req?: { id: string; method: string; url: string };
    res?: { statusCode: number };
    responseTime?: number;
  };
  const lines: Line[] = [];
  const policy = { sampleRate: 1, slowMs: 1000 };
  let app: NestFastifyApplication;
  let base: string;
  beforeAll(async () => {
    // The service's logger options, request logging and global prefix, with the lines kept
    // here instead of on stdout.
    const params = loggerParams('info');
    const sink = { write: (line: string) => void lines.push(JSON.parse(line) as Line) };
    @Module({
      imports: [LoggerModule.forRoot({ ...params, pinoHttp: [params.pinoHttp as Options, sink] })],
      controllers: [ProbeHealthController, ProbeThingsController],
    })
    class ProbeModule {}
    const adapter = new FastifyAdapter({ genReqId: generateRequestId });
    installRequestLogging(adapter.getInstance(), policy);
    app = await NestFactory.create<NestFastifyApplication>(ProbeModule, adapter, {
      bufferLogs: true,
    });
    app.useLogger(app.get(NestPinoLogger));
    applyGlobalPrefix(app);
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });
  afterAll(() => app.close());

  const completed = () => lines.filter((line) => line.msg === 'request completed');
  async function fetchAndWait(url: string, init?: RequestInit): Promise<Response> {
    lines.length = 0;
    const res = await fetch(base + url, init);
    await res.arrayBuffer();
    // The line is written when the response has gone out.
    for (let waited = 0; completed().length === 0 && waited < 300; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return res;
  }

  it.each([
    ['GET', '/health/live', 200],
    ['HEAD', '/health/live', 200],
    ['GET', '/health/ready', 200],
    ['GET', `/${GLOBAL_PREFIX}/things/1`, 200],
    ['HEAD', `/${GLOBAL_PREFIX}/things/1`, 200],
    ['GET', `/${GLOBAL_PREFIX}`, 404],
    ['GET', `/${GLOBAL_PREFIX}/nowhere`, 404],
  ] as const)('logs %s %s exactly once', async (method, url, status) => {
    const res = await fetchAndWait(url, { method });
    expect(res.status).toBe(status);
    expect(completed()).toEqual([
      expect.objectContaining({
        level: 30,
        request_id: expect.any(String),
        req: expect.objectContaining({ method, url }),
        res: { statusCode: status },
        responseTime: expect.any(Number),
      }),
    ]);
  });

  it("gives the application's lines of a request its request_id, after an await too", async () => {
    await fetchAndWait(`/${GLOBAL_PREFIX}/things/2`, { headers: { 'x-request-id': 'probe-42' } });
    expect(lines.find((line) => line.msg === 'looked a thing up')).toMatchObject({
      request_id: 'probe-42',
    });
    expect(completed()).toEqual([expect.objectContaining({ request_id: 'probe-42' })]);
  });

  it('redacts query values in the logged URL', async () => {
    await fetchAndWait(`/${GLOBAL_PREFIX}/things/3?api_key=capi_secret`);
    expect(completed()[0].req?.url).toBe(`/${GLOBAL_PREFIX}/things/3?api_key=[redacted]`);
    expect(JSON.stringify(lines)).not.toContain('capi_secret');
  });

  it('samples ordinary requests but always logs failed ones', async () => {
    policy.sampleRate = 0;
    try {
      await fetchAndWait('/health/live');
      expect(completed()).toEqual([]);
      await fetchAndWait(`/${GLOBAL_PREFIX}/nowhere`);
      expect(completed()).toEqual([expect.objectContaining({ res: { statusCode: 404 } })]);
    } finally {
      policy.sampleRate = 1;
    }
  });
});
