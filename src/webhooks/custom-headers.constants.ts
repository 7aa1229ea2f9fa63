/** Most custom headers an endpoint may have (docs/webhooks.md#custom-headers). */
export const MAX_CUSTOM_HEADERS = 20;

/** Longest custom header name accepted (characters). */
export const MAX_CUSTOM_HEADER_NAME = 100;

/** Longest custom header value accepted (characters, after trimming). */
export const MAX_CUSTOM_HEADER_VALUE = 1000;

/** Most characters of all an endpoint's custom header names and values together. */
export const MAX_CUSTOM_HEADERS_CHARS = 8192;

/**
 * What the dashboard, the CLI and the endpoint reads show instead of a secret header's value
 * (docs/webhooks.md#custom-headers), followed by its last {@link SECRET_HINT_CHARS} characters
 * when the value is at least {@link MIN_HINTED_SECRET} characters long.
 */
export const SECRET_MASK = '••••';

/** How many trailing characters of a long secret value its mask shows. */
export const SECRET_HINT_CHARS = 4;

/** Shorter secret values show the bare mask: four characters of a short one say too much. */
export const MIN_HINTED_SECRET = 16;

/**
 * Names a custom header may not take, lower-case, each with why
 * (docs/webhooks.md#custom-headers): hop-by-hop headers (RFC 9110 §7.6.1) concern one
 * connection, not the message; the rest the service sets itself on every request.
 */
export const RESERVED_HEADER_NAMES: ReadonlyMap<string, string> = new Map([
  ['connection', 'hop-by-hop headers apply to one connection only'],
  ['keep-alive', 'hop-by-hop headers apply to one connection only'],
  ['te', 'hop-by-hop headers apply to one connection only'],
  ['trailer', 'hop-by-hop headers apply to one connection only'],
  ['transfer-encoding', 'hop-by-hop headers apply to one connection only'],
  ['upgrade', 'hop-by-hop headers apply to one connection only'],
  ['expect', 'the service does not send request bodies in two steps'],
  ['host', 'the service sets it from the endpoint URL'],
  ['content-length', 'the service sets it from the body'],
  ['content-type', 'the service always sends application/json'],
  ['user-agent', 'the service identifies itself with its own User-Agent'],
]);

/**
 * Why a custom header may not be called `name` (any case), or null when it may: the names of
 * {@link RESERVED_HEADER_NAMES}, `proxy-*` (hop-by-hop, for proxies) and `webhook-*` (the
 * Standard Webhooks headers the signature depends on).
 */
export function reservedHeaderReason(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower.startsWith('proxy-')) return 'proxy-* headers are meant for proxies';
  if (lower.startsWith('webhook-')) return 'webhook-* names are kept for the signature headers';
  return RESERVED_HEADER_NAMES.get(lower) ?? null;
}
