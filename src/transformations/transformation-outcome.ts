import {
  TRANSFORMATION_MAX_MESSAGE_LENGTH,
  type TransformationFailureKind,
  type TransformationMethod,
} from './transformation.constants';

/**
 * What a transformation's handler is given (docs/webhooks.md#transformations): inside the
 * sandbox it becomes `webhook = { method, url, headers, payload, event_type }`, Svix's shape.
 */
export interface TransformationInput {
  /** The method the delivery would use untransformed: always `POST`. */
  method: 'POST';
  /** The endpoint's URL. */
  url: string;
  /** The headers the handler may read and change (name → value). */
  headers: Record<string, string>;
  /**
   * The event's JSON body, exactly as it would be sent untransformed: it travels as JSON text and
   * is parsed inside the sandbox into `webhook.payload`.
   */
  payloadJson: string;
  /** The event's type, `webhook.event_type`. */
  eventType: string;
}

/**
 * The code to run. `key` identifies it for runtime reuse, e.g. `${endpointId}:${version}`: a new
 * version gets a new key, and one key's runtime is never another key's.
 */
export interface TransformationCode {
  key: string;
  /** The customer's JavaScript, defining `function handler(webhook) { …; return webhook; }`. */
  code: string;
}

/** Why a transformation gave no request (docs/webhooks.md#transformations). */
export interface TransformationFailure {
  /** One of {@link TransformationFailureKind}. */
  kind: string;
  /**
   * One line a customer understands, at most 400 characters, e.g. "TypeError: cannot read
   * property 'email' of undefined", "ran longer than 50 ms", "the result is 300 KiB; at most
   * 256 KiB". It never holds a host path or a Node stack.
   */
  message: string;
  /** 1-based line in the customer's code when known, else null. */
  line: number | null;
  /** 1-based column in the customer's code when known, else null. */
  column: number | null;
}

/** The request a transformation shaped, the cancellation it asked for, or why it failed. */
export type TransformationOutcome =
  | {
      kind: 'request';
      method: TransformationMethod;
      /** An absolute http(s) URL; the caller still applies its address policy. */
      url: string;
      /** Name → value, in an object without a prototype (`__proto__` is an ordinary name). */
      headers: Record<string, string>;
      /** The body to send, well-formed Unicode, at most 256 KiB as UTF-8. */
      body: string;
      /** The returned `content-type` for a string payload, else `application/json`. */
      contentType: string;
    }
  /** The handler returned null: the delivery is not sent. */
  | { kind: 'cancelled' }
  | { kind: 'error'; error: TransformationFailure };

/**
 * {@link TransformationOutcome} as it crosses from a worker thread: headers as `[name, value]`
 * pairs (a structured clone would give an object a prototype again).
 */
export type WireOutcome =
  | (Omit<Extract<TransformationOutcome, { kind: 'request' }>, 'headers'> & {
      headers: Array<[string, string]>;
    })
  | Exclude<TransformationOutcome, { kind: 'request' }>;

/**
 * A failure with its message made one line of at most 400 characters.
 *
 * @param line 1-based, or null when unknown.
 * @param column 1-based, or null when unknown.
 */
export function failure(
  kind: TransformationFailureKind,
  message: string,
  line: number | null = null,
  column: number | null = null,
): TransformationFailure {
  let text = message.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ').trim();
  if (text.length > TRANSFORMATION_MAX_MESSAGE_LENGTH) {
    let end = TRANSFORMATION_MAX_MESSAGE_LENGTH - 1;
    // Never cut a surrogate pair in two.
    if (/[\uD800-\uDBFF]/.test(text[end - 1])) end -= 1;
    text = `${text.slice(0, end)}…`;
  }
  return { kind, message: text, line, column };
}

/** An outcome of kind `error`. */
export function errorOutcome(error: TransformationFailure): {
  kind: 'error';
  error: TransformationFailure;
} {
  return { kind: 'error', error };
}

/**
 * The outcome a caller gets from a {@link WireOutcome}: the headers in an object without a
 * prototype.
 */
export function fromWire(outcome: WireOutcome): TransformationOutcome {
  if (outcome.kind !== 'request') return outcome;
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, value] of outcome.headers) headers[name] = value;
  return { ...outcome, headers };
}
