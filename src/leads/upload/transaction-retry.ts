/** PostgreSQL deadlock_detected / serialization_failure: safe to run the transaction again. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);

/** How many times an upload's transaction runs at most (docs/decisions.md#uploads). */
export const MAX_TRANSACTION_ATTEMPTS = 3;

/**
 * Whether `error` (as TypeORM throws it, the PostgreSQL error under `driverError`) is a
 * deadlock (`40P01`) or serialization failure (`40001`): the transaction was rolled back and
 * running it again is safe.
 */
export function isRetryableTransactionError(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown } } | null | undefined)
    ?.driverError;
  const code = typeof driverError?.code === 'string' ? driverError.code : '';
  return RETRYABLE_SQLSTATES.has(code);
}

/**
 * Runs `transaction` and runs it again when it fails with a deadlock or serialization failure
 * (docs/decisions.md#uploads), at most `maxAttempts` times in all, at once (no delay).
 *
 * @param transaction one whole transaction: it must leave nothing behind when it throws.
 * @returns what the first successful run returns.
 * @throws the error of the last run, or at once any error that is not retryable.
 */
export async function retryOnTransactionConflict<T>(
  transaction: () => Promise<T>,
  maxAttempts = MAX_TRANSACTION_ATTEMPTS,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= maxAttempts || !isRetryableTransactionError(error)) throw error;
    }
  }
}
