import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { REDACTED, scrubAttributes, scrubSpan } from './span-scrubber';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

describe('scrubAttributes', () => {
  it('drops secret-named attributes and the query string, and cuts URLs at "?"', () => {
    expect(
      scrubAttributes({
        'http.request.header.authorization': ['Bearer x'],
        'http.request.header.cookie': ['sid=1'],
        'http.request.header.webhook-signature': ['v1,abc'],
        'url.query': 'email=ada%40example.com',
        'url.path': '/dashboard/api/leads?q=ada@example.com',
        'url.full': 'http://h/x?token=1',
        'http.route': '/api/v1/leads/upload',
        'http.response.status_code': 202,
      }),
    ).toEqual({
      'url.path': '/dashboard/api/leads',
      'url.full': 'http://h/x',
      'http.route': '/api/v1/leads/upload',
      'http.response.status_code': 202,
    });
  });

  it('replaces any value holding an API key, a signing secret, an ed25519 secret key or a JWT', () => {
    expect(
      scrubAttributes({
        a: 'key capi_abc',
        b: 'whsec_abc',
        e: 'key whsk_abc',
        c: `Bearer ${JWT}`,
        d: ['ok', JWT],
        'db.query.text': 'SELECT 1 FROM lead WHERE phone = $1',
      }),
    ).toEqual({
      a: REDACTED,
      b: REDACTED,
      e: REDACTED,
      c: REDACTED,
      d: ['ok', REDACTED],
      'db.query.text': 'SELECT 1 FROM lead WHERE phone = $1',
    });
  });
});

describe('scrubSpan', () => {
  it('keeps an exception event’s type and frames, never its message, and drops the status message', () => {
    const span = {
      name: 'request',
      spanContext: () => ({ traceId: 't', spanId: 's', traceFlags: 1 }),
      status: { code: SpanStatusCode.ERROR, message: 'Unexpected token in "ada@example.com"' },
      attributes: {},
      links: [{ context: { traceId: 't', spanId: 'l', traceFlags: 1 }, attributes: { x: JWT } }],
      events: [
        {
          name: 'exception',
          time: [0, 0],
          attributes: {
            'exception.type': 'SyntaxError',
            'exception.message': 'bad "ada@example.com"',
            'exception.stacktrace': 'SyntaxError: bad "ada@example.com"\n    at parse (x.js:1:1)',
          },
        },
      ],
    } as unknown as ReadableSpan;
    const scrubbed = scrubSpan(span);
    expect(scrubbed.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(scrubbed.events[0].attributes).toEqual({
      'exception.type': 'SyntaxError',
      'exception.stacktrace': '    at parse (x.js:1:1)',
    });
    expect(scrubbed.links[0].attributes).toEqual({ x: REDACTED });
    expect(scrubbed.spanContext().spanId).toBe('s');
  });
});
