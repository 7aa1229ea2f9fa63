/**
 * Tells whether an error means "PostgreSQL cannot be reached right now" (connection refused,
 * reset, timed out, server shutting down) rather than a fault in our SQL. Such errors become
 * 503 `service_unavailable` (docs/api.md#errors); the pool reconnects by itself when PostgreSQL returns.
 */
export function isDatabaseUnavailableError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const err = e as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    const code = typeof err.code === 'string' ? err.code : '';
    if (
      [
        'ECONNREFUSED',
        'ECONNRESET',
        'ETIMEDOUT',
        'EPIPE',
        'ENOTFOUND',
        'EHOSTUNREACH',
        'EAI_AGAIN',
      ].includes(code)
    ) {
      return true;
    }
    // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown / cannot connect now), 53300 (too many connections)
    if (/^08/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
    const message = typeof err.message === 'string' ? err.message : '';
    if (
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is not established|the database system is (starting up|shutting down)/i.test(
        message,
      )
    ) {
      return true;
    }
    e = err.driverError ?? err.cause;
  }
  return false;
}
