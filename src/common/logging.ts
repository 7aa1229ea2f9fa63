import type { Params } from 'nestjs-pino';
import { requestIdMixin } from './request-logging';
import {
  API_KEY_PREFIX,
  PORTAL_LINK_SECRET_PREFIX,
  PORTAL_SESSION_TOKEN_PREFIX,
  SIGNING_KEY_PREFIX,
  SIGNING_SECRET_PREFIX,
} from './secret-prefixes';

/** Three dot-separated base64url parts: the shape of a JWT (header.claims.signature). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Whether `value` looks like one of our secrets or a bearer token: it contains an API key
 * prefix (`capi_`), a signing-secret prefix (`whsec_`), an ed25519 secret-key prefix
 * (`whsk_`), a portal link's or portal session's prefix (`cpl_`, `cps_`), starts with `eyJ` (a base64url JSON object, as every JWT does) or has a JWT's three
 * dot-separated base64url parts.
 */
export function looksLikeSecret(value: string): boolean {
  return (
    value.includes(API_KEY_PREFIX) ||
    value.includes(SIGNING_SECRET_PREFIX) ||
    value.includes(SIGNING_KEY_PREFIX) ||
    value.includes(PORTAL_LINK_SECRET_PREFIX) ||
    value.includes(PORTAL_SESSION_TOKEN_PREFIX) ||
    value.startsWith('eyJ') ||
    JWT_SHAPE.test(value)
  );
}

const PLAIN_QUERY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * A request URL as logs may show it: the path as sent, and every query value replaced by
 * `[redacted]`, so a key or token sent in the query string never reaches a log (docs/operations.md).
 * A parameter name is kept only when it is short and plain (`[A-Za-z0-9_.-]`, ≤ 64) and not
 * secret-shaped; a parameter without `=` is redacted whole. Our API takes no query parameters.
 *
 * @param url the request target (`/path?query`), or undefined.
 * @returns e.g. `/api/v1/x?api_key=[redacted]&[redacted]` for `/api/v1/x?api_key=capi_…&eyJ…`.
 */
export function redactUrl(url: string): string;
export function redactUrl(url: string | undefined): string | undefined;
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const start = url.indexOf('?');
  if (start === -1) return url;
  const params = url
    .slice(start + 1)
    .split('&')
    .map((param) => {
      const equals = param.indexOf('=');
      if (equals === -1) return param === '' ? '' : '[redacted]';
      const name = param.slice(0, equals);
      const shownName = PLAIN_QUERY_NAME.test(name) && !looksLikeSecret(name) ? name : '[redacted]';
      return `${shownName}=[redacted]`;
    });
  return `${url.slice(0, start)}?${params.join('&')}`;
}

/**
 * Log paths that may carry secrets (docs/operations.md): bearer tokens, API keys, signing secrets.
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
 * nestjs-pino options: JSON lines on stdout, secrets redacted (header and body paths by
 * {@link REDACTED_PATHS}, query strings by {@link redactUrl}), `request_id` added to the
 * lines of a request by {@link requestIdMixin}. No route gets nestjs-pino's request
 * middleware: requests are logged by `installRequestLogging` at the Fastify level
 * (docs/operations.md#logs), which writes through this logger and its `req`/`res` serializers.
 */
export function loggerParams(level: string): Params {
  return {
    forRoutes: [],
    pinoHttp: {
      level,
      // request_id on every line written during a request (installRequestLogging).
      mixin: requestIdMixin,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: { id?: string; method?: string; url?: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url),
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
    },
  };
}
