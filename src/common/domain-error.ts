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
  /** An `Idempotency-Key` reused with another body, or while its first request still runs. */
  | 'idempotency_conflict'
  /** The resource is not in a state that allows the action (an import cancelled, an endpoint disabled). */
  | 'state_conflict'
  /** What the caller would create exists already (a dashboard user's email). */
  | 'already_exists';

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

/** The codes of the conflicts: each kind of conflict has its own, so each edge can tell them apart. */
export type ConflictCode = Extract<
  DomainErrorCode,
  'idempotency_conflict' | 'state_conflict' | 'already_exists'
>;

/**
 * The request conflicts with the current state: the base of {@link StateConflictError},
 * {@link AlreadyExistsError} and the idempotency module's `IdempotencyConflictError`. Throw one
 * of those, never this class itself: the code tells the edges which conflict it is.
 */
export abstract class ConflictError extends DomainError {
  protected constructor(code: ConflictCode, message: string, field?: string) {
    super(code, message, field);
  }
}

/**
 * The resource is not in a state that allows the action:
 * `new StateConflictError('spreadsheet import … is cancelled: upload the file again', 'status')`.
 * HTTP: 409 `conflict`.
 */
export class StateConflictError extends ConflictError {
  constructor(message: string, field?: string) {
    super('state_conflict', message, field);
  }
}

/**
 * What the caller would create exists already:
 * `new AlreadyExistsError('a dashboard user with email … exists already', 'email')`.
 * HTTP: 409 `conflict`.
 */
export class AlreadyExistsError extends ConflictError {
  constructor(message: string, field?: string) {
    super('already_exists', message, field);
  }
}
