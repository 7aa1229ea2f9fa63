import {
  TRANSFORMATION_MAX_HEADERS,
  TRANSFORMATION_MAX_HEADER_NAME_LENGTH,
  TRANSFORMATION_MAX_HEADER_VALUE_LENGTH,
  TRANSFORMATION_MAX_OUTPUT_BYTES,
  TRANSFORMATION_MAX_URL_LENGTH,
  TRANSFORMATION_METHODS,
  formatBytes,
  type TransformationMethod,
} from './transformation.constants';
import { errorOutcome, failure, type WireOutcome } from './transformation-outcome';

/** A string field as the prelude's `serialise` writes it: `[text]`, or `[null, its type]`. */
type Field = [string] | [null, string];

/**
 * The JSON text the prelude's `serialise` returns for a handler's result (`sandbox-prelude.ts`):
 * strings longer than their limit arrive cut one character past it, a payload too large to carry
 * arrives as its least size.
 */
interface SerialisedResult {
  cancelled?: true;
  /** Set when the result is not a plain object: its type (`undefined`, `array`, `instance`, …). */
  result?: string;
  method?: Field;
  url?: Field;
  headers?: { entries?: Array<[string, Field]>; count?: number; kind?: string };
  payload?: { kind: string; text?: string; atLeast?: number };
}

/** The content type of a string payload whose headers name none. */
export const DEFAULT_TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** "an array", "a number", "undefined": a type as a message names it. */
function typeName(kind: string): string {
  if (kind === 'undefined' || kind === 'null') return kind;
  if (kind === 'instance') return 'an object of a class';
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/** A customer's text quoted in a message, cut to 40 characters. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** The size message of a body of `bytes` (or at least that many, when `atLeast`). */
function tooLarge(bytes: number, atLeast: boolean) {
  const size = formatBytes(bytes);
  return errorOutcome(
    failure(
      'output_too_large',
      `the result is ${atLeast ? 'at least ' : ''}${size}; at most ${formatBytes(TRANSFORMATION_MAX_OUTPUT_BYTES)}`,
    ),
  );
}

const shape = (message: string) => errorOutcome(failure('shape', message));

/**
 * Holds a handler's serialised result to the output rules (docs/webhooks.md#transformations) and
 * gives the request it describes. Pure: the text comes from the prelude's `serialise`, run in
 * the sandbox under the call's budget, so nothing of the customer's runs here.
 *
 * - `null` → `cancelled`;
 * - otherwise a plain object with `method` one of POST, PUT, PATCH (any case, given upper-case),
 *   `url` an absolute http(s) URL of at most 2,048 characters (given as parsed, `href`),
 *   `headers` an object of at most 50 string values (names ≤ 100 characters, values ≤ 2,048),
 *   and `payload`: a string is the body as is, with the returned `content-type` header (any case)
 *   or `text/plain; charset=utf-8`; any other JSON value is the body as its JSON text, with
 *   `application/json`; `undefined` (or a function) is refused;
 * - the body must be well-formed Unicode and at most 256 KiB as UTF-8.
 *
 * @param text the prelude's JSON text.
 * @returns a `request`, `cancelled`, or an `error` of kind `shape` or `output_too_large`.
 * @throws SyntaxError when `text` is not JSON (never for the prelude's own output).
 */
export function readSerialisedResult(text: string): WireOutcome {
  const result = JSON.parse(text) as SerialisedResult;
  if (result.cancelled === true) return { kind: 'cancelled' };
  if (result.result !== undefined) {
    return shape(
      `the handler must return the webhook object or null, not ${typeName(result.result)}`,
    );
  }

  const method = result.method;
  if (method === undefined || method[0] === null) {
    return shape(`method must be POST, PUT or PATCH, not ${typeName(method?.[1] ?? 'undefined')}`);
  }
  const upper = method[0].toUpperCase();
  if (!(TRANSFORMATION_METHODS as readonly string[]).includes(upper)) {
    return shape(`method must be POST, PUT or PATCH, not ${quoted(method[0]).slice(1, -1)}`);
  }

  const url = result.url;
  if (url === undefined || url[0] === null) {
    return shape(`url must be a string, not ${typeName(url?.[1] ?? 'undefined')}`);
  }
  if (url[0].length > TRANSFORMATION_MAX_URL_LENGTH) {
    return shape(`url is longer than ${TRANSFORMATION_MAX_URL_LENGTH} characters`);
  }
  let href: string;
  try {
    const parsed = new URL(url[0]);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError();
    href = parsed.href;
  } catch {
    return shape(`url must be an absolute http or https URL, not ${quoted(url[0])}`);
  }
  if (href.length > TRANSFORMATION_MAX_URL_LENGTH) {
    return shape(`url is longer than ${TRANSFORMATION_MAX_URL_LENGTH} characters`);
  }

  const headers = result.headers;
  if (headers === undefined || headers.kind !== undefined) {
    return shape(
      `headers must be an object of strings, not ${typeName(headers?.kind ?? 'undefined')}`,
    );
  }
  if (headers.count !== undefined || (headers.entries?.length ?? 0) > TRANSFORMATION_MAX_HEADERS) {
    return shape(
      `headers has ${headers.count ?? headers.entries?.length} entries; at most ${TRANSFORMATION_MAX_HEADERS}`,
    );
  }
  const entries: Array<[string, string]> = [];
  let contentType: string | null = null;
  for (const [name, value] of headers.entries ?? []) {
    if (name.length > TRANSFORMATION_MAX_HEADER_NAME_LENGTH) {
      return shape(
        `header name ${quoted(name)} is longer than ${TRANSFORMATION_MAX_HEADER_NAME_LENGTH} characters`,
      );
    }
    if (value[0] === null) {
      return shape(`header ${quoted(name)} must be a string, not ${typeName(value[1])}`);
    }
    if (value[0].length > TRANSFORMATION_MAX_HEADER_VALUE_LENGTH) {
      return shape(
        `header ${quoted(name)} is longer than ${TRANSFORMATION_MAX_HEADER_VALUE_LENGTH} characters`,
      );
    }
    if (name.toLowerCase() === 'content-type') contentType = value[0];
    entries.push([name, value[0]]);
  }

  const payload = result.payload;
  if (payload === undefined || (payload.kind !== 'string' && payload.kind !== 'json')) {
    const kind = payload?.kind ?? 'undefined';
    return shape(
      kind === 'undefined'
        ? 'payload is undefined: return a string or a JSON value (null sends the JSON text null)'
        : `payload must be a string or a JSON value, not ${typeName(kind)}`,
    );
  }
  if (payload.atLeast !== undefined) return tooLarge(payload.atLeast, true);
  const body = payload.text ?? '';
  if (!body.isWellFormed()) {
    return shape('the payload is not valid UTF-8 text');
  }
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > TRANSFORMATION_MAX_OUTPUT_BYTES) return tooLarge(bytes, false);

  return {
    kind: 'request',
    method: upper as TransformationMethod,
    url: href,
    headers: entries,
    body,
    contentType:
      payload.kind === 'json' ? 'application/json' : (contentType ?? DEFAULT_TEXT_CONTENT_TYPE),
  };
}
