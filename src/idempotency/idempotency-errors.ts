import { ConflictError } from '../common/domain-error';

/**
 * An `Idempotency-Key` cannot be used for this request (docs/api.md#idempotent-retries): it was
 * used with another body, or the first request with it is still running. A {@link ConflictError}
 * with the code `idempotency_conflict`, which the HTTP API answers with 409
 * `idempotency_conflict` (docs/api.md#errors).
 */
export class IdempotencyConflictError extends ConflictError {
  private constructor(message: string) {
    super('idempotency_conflict', message);
  }

  /** The key was first used with a different request body. */
  static differentBody(): IdempotencyConflictError {
    return new IdempotencyConflictError(
      'This Idempotency-Key was already used with a different request body',
    );
  }

  /** The first request with the key has not finished (nor been abandoned) yet. */
  static stillRunning(): IdempotencyConflictError {
    return new IdempotencyConflictError(
      'A request with this Idempotency-Key is still being processed; retry shortly',
    );
  }
}
