import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { applyGlobalPrefix, GLOBAL_PREFIX } from '../app.factory';
import { loggerParams, looksLikeSecret, redactUrl } from './logging';

const API_KEY = `capi_${'A'.repeat(43)}`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

describe('redactUrl (defect 12)', () => {
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

describe('looksLikeSecret (defect 12)', () => {
  it.each([API_KEY, `x-${API_KEY}`, 'whsec_abc', JWT, 'eyJhbGciOiJIUzI1NiJ9', 'a.b.c'])(
    'recognises %s',
    (value) => expect(looksLikeSecret(value)).toBe(true),
  );

  it.each(['trace-abc.123', '0f8c5b8e-6f1c-4e1e-9a57-0a9d0f6f2f4e', 'req:42', 'a.b'])(
    'does not flag %s',
    (value) => expect(looksLikeSecret(value)).toBe(false),
  );
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
    @Get(':id')
    one(): object {
      return {};
    }
  }

  const lines: Array<{ msg?: string; req?: { method: string; url: string } }> = [];
  let app: NestFastifyApplication;
  let base: string;
  beforeAll(async () => {
    // The service's logger options and global prefix, with the lines kept here instead of on stdout.
    const params = loggerParams('info');
    const sink = { write: (line: string) => void lines.push(JSON.parse(line)) };
    @Module({
      imports: [LoggerModule.forRoot({ ...params, pinoHttp: [params.pinoHttp as Options, sink] })],
      controllers: [ProbeHealthController, ProbeThingsController],
    })
    class ProbeModule {}
    app = await NestFactory.create<NestFastifyApplication>(ProbeModule, new FastifyAdapter(), {
      logger: false,
    });
    applyGlobalPrefix(app);
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });
  afterAll(() => app.close());

  it.each([
    ['GET', '/health/live', 200],
    ['HEAD', '/health/live', 200],
    ['GET', '/health/ready', 200],
    ['GET', `/${GLOBAL_PREFIX}/things/1`, 200],
    ['HEAD', `/${GLOBAL_PREFIX}/things/1`, 200],
    ['GET', `/${GLOBAL_PREFIX}`, 404],
    ['GET', `/${GLOBAL_PREFIX}/nowhere`, 404],
  ] as const)('logs %s %s exactly once', async (method, url, status) => {
    lines.length = 0;
    const res = await fetch(base + url, { method });
    await res.arrayBuffer();
    expect(res.status).toBe(status);
    // pino-http writes on the response's `finish`, every line of one request at once.
    const completed = () => lines.filter((line) => line.msg === 'request completed');
    for (let waited = 0; completed().length === 0 && waited < 2000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(completed()).toEqual([
      expect.objectContaining({ req: expect.objectContaining({ method, url }) }),
    ]);
  });
});
