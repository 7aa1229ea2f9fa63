import { InvalidInputError } from '../common/domain-error';
import {
  MAX_CUSTOM_HEADER_NAME,
  MAX_CUSTOM_HEADER_VALUE,
  MAX_CUSTOM_HEADERS,
  MAX_CUSTOM_HEADERS_CHARS,
  MIN_HINTED_SECRET,
  reservedHeaderReason,
  SECRET_HINT_CHARS,
  SECRET_MASK,
} from './custom-headers.constants';

/**
 * One custom header as given by the dashboard or the CLI (docs/webhooks.md#custom-headers).
 * A secret header given without a value keeps the value stored under its name.
 */
export interface CustomHeaderInput {
  name: string;
  value?: string | null;
  secret?: boolean;
}

/**
 * One custom header as stored in `webhook_endpoint.custom_headers` (jsonb): a plain one with
 * its value, a secret one only encrypted (`SigningSecretBox`, `v1:<iv>:<tag>:<ciphertext>`)
 * with the mask shown for it.
 */
export type StoredCustomHeader =
  | { name: string; secret: false; value: string }
  | { name: string; secret: true; encrypted: string; masked: string };

/**
 * One custom header as read back: `value` is null for a secret one, except in the answer of
 * the create or update that set it; `masked_value` (`••••` and maybe the last 4 characters)
 * is null for a plain one.
 */
export interface CustomHeaderView {
  name: string;
  secret: boolean;
  value: string | null;
  masked_value: string | null;
}

/** One custom header as the delivery worker sends it: the value in clear. */
export interface CustomHeaderToSend {
  name: string;
  value: string;
  secret: boolean;
}

/** A checked custom header: the plain value to store, or for a secret one null to keep the stored one. */
export interface CheckedCustomHeader {
  name: string;
  secret: boolean;
  /** Null only for a secret header that keeps its stored value. */
  value: string | null;
}

/** RFC 9110 §5.6.2 `token`: what a field name is made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const LINE_BREAK_OR_NUL = /[\r\n\0]/;
/** Visible ASCII, space and tab (RFC 9110 §5.5 without obs-text). */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

function headerError(message: string): InvalidInputError {
  return new InvalidInputError(message, 'header');
}

/**
 * Checks an endpoint's new list of custom headers (docs/webhooks.md#custom-headers). Names and
 * values are trimmed; names keep the case given.
 * @param input the whole list, replacing the stored one.
 * @param stored the endpoint's current headers: a secret header given without a value keeps
 *   the value stored under its name (any case) when that one is secret too.
 * @returns the headers in the order given.
 * @throws InvalidInputError (field `header`, the message naming the header) for more than
 *   {@link MAX_CUSTOM_HEADERS} headers, a name that is empty, longer than 100 characters, not
 *   an RFC 9110 token, reserved ({@link reservedHeaderReason}) or given twice (any case), a
 *   value that is missing, contains CR, LF, NUL or another control or non-ASCII character, or
 *   is longer than 1,000 characters, and names and values above 8,192 characters in all.
 */
export function validateCustomHeaders(
  input: readonly CustomHeaderInput[],
  stored: readonly StoredCustomHeader[] = [],
): CheckedCustomHeader[] {
  if (input.length > MAX_CUSTOM_HEADERS) {
    throw headerError(
      `headers: at most ${MAX_CUSTOM_HEADERS} custom headers are allowed, got ${input.length}`,
    );
  }
  const seen = new Set<string>();
  let chars = 0;
  const checked = input.map((header, index): CheckedCustomHeader => {
    const name = (header.name ?? '').trim();
    if (name === '') throw headerError(`header ${index + 1} needs a name`);
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    if (name.length > MAX_CUSTOM_HEADER_NAME) {
      throw headerError(`header name ${shown} is longer than ${MAX_CUSTOM_HEADER_NAME} characters`);
    }
    if (!TOKEN.test(name)) {
      throw headerError(
        `header name ${shown} is not a valid HTTP header name: use letters, digits and !#$%&'*+-.^_\`|~ only`,
      );
    }
    const reserved = reservedHeaderReason(name);
    if (reserved !== null) throw headerError(`header ${shown} cannot be set: ${reserved}`);
    if (seen.has(name.toLowerCase())) {
      throw headerError(`header ${shown} is given twice (header names ignore case)`);
    }
    seen.add(name.toLowerCase());
    const secret = header.secret === true;
    const given = header.value ?? null;
    if (given === null || given.trim() === '') {
      const kept = stored.find((s) => s.secret && s.name.toLowerCase() === name.toLowerCase());
      if (secret && given === null && kept) {
        chars += name.length;
        return { name, secret, value: null };
      }
      throw headerError(`header ${shown} needs a value`);
    }
    if (LINE_BREAK_OR_NUL.test(given)) {
      throw headerError(`header ${shown}: the value must not contain CR, LF or NUL`);
    }
    const value = given.trim();
    if (!FIELD_VALUE.test(value)) {
      throw headerError(
        `header ${shown}: the value may hold only visible ASCII characters, spaces and tabs`,
      );
    }
    if (value.length > MAX_CUSTOM_HEADER_VALUE) {
      throw headerError(
        `header ${shown}: the value is longer than ${MAX_CUSTOM_HEADER_VALUE} characters`,
      );
    }
    chars += name.length + value.length;
    return { name, secret, value };
  });
  if (chars > MAX_CUSTOM_HEADERS_CHARS) {
    throw headerError(
      `headers: names and values may hold at most ${MAX_CUSTOM_HEADERS_CHARS} characters in all, got ${chars}`,
    );
  }
  return checked;
}

/** `••••` and, for a value of 16 characters or more, its last 4 (docs/webhooks.md#custom-headers). */
export function maskSecretValue(value: string): string {
  return value.length >= MIN_HINTED_SECRET
    ? `${SECRET_MASK}${value.slice(-SECRET_HINT_CHARS)}`
    : SECRET_MASK;
}

/**
 * The stored form of checked headers: secret values encrypted with `encrypt`, a kept secret
 * copied from `stored` (the same ciphertext and mask).
 */
export function sealCustomHeaders(
  checked: readonly CheckedCustomHeader[],
  stored: readonly StoredCustomHeader[],
  encrypt: (plaintext: string) => string,
): StoredCustomHeader[] {
  return checked.map((header): StoredCustomHeader => {
    if (!header.secret) return { name: header.name, secret: false, value: header.value! };
    if (header.value === null) {
      const kept = stored.find(
        (s) => s.secret && s.name.toLowerCase() === header.name.toLowerCase(),
      ) as Extract<StoredCustomHeader, { secret: true }>;
      return { name: header.name, secret: true, encrypted: kept.encrypted, masked: kept.masked };
    }
    return {
      name: header.name,
      secret: true,
      encrypted: encrypt(header.value),
      masked: maskSecretValue(header.value),
    };
  });
}

/**
 * The headers as read back: secret values masked, except those named in `revealed` (the
 * secret values an update or creation has just set, answered this once).
 */
export function customHeaderViews(
  stored: readonly StoredCustomHeader[],
  revealed: ReadonlyMap<string, string> = new Map(),
): CustomHeaderView[] {
  return stored.map((header) =>
    header.secret
      ? {
          name: header.name,
          secret: true,
          value: revealed.get(header.name) ?? null,
          masked_value: header.masked,
        }
      : { name: header.name, secret: false, value: header.value, masked_value: null },
  );
}

/**
 * What the audit log records of a list of headers: names and whether each is secret, the
 * value of a plain one, and for a secret one only whether this change set a new value; never
 * a secret value.
 */
export function auditedCustomHeaders(
  checked: readonly CheckedCustomHeader[],
): Array<Record<string, unknown>> {
  return checked.map((header) =>
    header.secret
      ? { name: header.name, secret: true, value_changed: header.value !== null }
      : { name: header.name, secret: false, value: header.value },
  );
}

/**
 * The headers a transformation returned (docs/webhooks.md#transformations), checked by the
 * custom-header rules ({@link validateCustomHeaders}: names, reserved names, values, counts),
 * except that `content-type` may be set: it is taken out and returned on its own. The
 * `webhook-*` headers can therefore be neither forged nor removed: the service sets them after
 * the transformation, and a returned one is refused.
 * @param headers the returned record (its own enumerable string entries).
 * @returns the headers to add to the request in the order returned, and the content type if set.
 * @throws InvalidInputError (field `header`) naming the header, as for an endpoint's headers.
 */
export function checkTransformedHeaders(headers: Record<string, string>): {
  headers: CustomHeaderToSend[];
  contentType: string | null;
} {
  let contentType: string | null = null;
  const input: CustomHeaderInput[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.trim().toLowerCase() === 'content-type') {
      if (LINE_BREAK_OR_NUL.test(value) || !FIELD_VALUE.test(value.trim())) {
        throw headerError(
          'header "content-type": the value may hold only visible ASCII characters',
        );
      }
      contentType = value.trim();
    } else {
      input.push({ name, value, secret: false });
    }
  }
  return {
    headers: validateCustomHeaders(input).map((h) => ({
      name: h.name,
      value: h.value ?? '',
      secret: false,
    })),
    contentType,
  };
}
