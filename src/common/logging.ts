import type { Params } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';

/**
 * Log paths that may carry secrets (CONTRACT 9): bearer tokens, API keys, signing secrets.
 * pino replaces them with `[redacted]` wherever they appear.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.api_key',
  '*.access_token',
  '*.token',
  '*.secret',
  '*.signing_secret',
  '*.password',
];

/**
 * nestjs-pino options: JSON lines on stdout, one `request_id` on every line of a request (the
 * id Fastify assigned, also sent back as `X-Request-Id`), and secrets redacted.
 */
export function loggerParams(level: string): Params {
  return {
    pinoHttp: {
      level,
      genReqId: (req: IncomingMessage) =>
        (req as IncomingMessage & { id?: string }).id ?? randomUUID(),
      customAttributeKeys: { reqId: 'request_id' },
      quietReqLogger: true,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: { id?: string; method?: string; url?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    },
  };
}
