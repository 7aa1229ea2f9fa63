/**
 * Errors that domain services throw (docs/architecture.md#errors). They carry a code and a
 * message written for any client; each edge maps them: the HTTP filter to a status and the
 * `{error, message}` envelope, the CLI to one line on stderr and exit 1, the dashboard API
 * to its own envelope. A service never decides an HTTP status or names a CLI flag.
 */

/** What went wrong, independent of the client that asked. */
export type DomainErrorCode =
  /** A value the caller supplied is not acceptable (the message says which and why). */
  | 'invalid_input'
  /** The thing the caller named does not exist (or is not theirs: one answer for both). */
  | 'not_found'
  /** The request conflicts with the current state (e.g. an idempotency key reused). */
  | 'conflict';

/** Base class of every domain error. */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /**
     * The input field the error is about, in the domain's words (`name`, `url`, `events`),
     * when there is one: the CLI shows it as `--name`, a form as a field error.
     */
    readonly field?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * A supplied value is not acceptable. With a `field`, the message starts with the field's
 * name (`name must be 1 to 200 characters`), so every edge can show it as is or relabel it.
 */
export class InvalidInputError extends DomainError {
  constructor(message: string, field?: string) {
    super('invalid_input', message, field);
  }

  /** `InvalidInputError.field('url', 'must use http or https')` → "url must use http or https". */
  static field(field: string, problem: string): InvalidInputError {
    return new InvalidInputError(`${field} ${problem}`, field);
  }
}

/** The named resource does not exist: `new NotFoundError('webhook endpoint 7 does not exist')`. */
export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('not_found', message);
  }
}

/** The request conflicts with the current state of the resource. */
export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}
