import type { INestApplicationContext, LoggerService } from '@nestjs/common';

/** How long in-flight requests and delivery attempts get to finish after SIGTERM, in ms. */
const SHUTDOWN_DEADLINE_MS = 30_000;

/**
 * On SIGTERM or SIGINT: stop accepting work, let in-flight requests and delivery attempts
 * finish (Nest closes the HTTP server, the BullMQ workers and the pool in `app.close()`), then
 * exit 0 (CONTRACT 9). Nest's own shutdown hooks re-raise the signal, which exits by signal
 * instead. A shutdown that hangs past 30 s exits 1.
 */
export function exitGracefullyOnSignals(app: INestApplicationContext, logger: LoggerService): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: finishing in-flight work`, 'Shutdown');
    setTimeout(() => {
      logger.error('Shutdown deadline passed; exiting', undefined, 'Shutdown');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    app
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error(`Shutdown failed: ${(error as Error).message}`, undefined, 'Shutdown');
        process.exit(1);
      });
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
