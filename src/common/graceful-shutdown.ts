import type { INestApplicationContext, LoggerService } from '@nestjs/common';

/** A shutdown deadline: a shutdown still running after this many ms exits 1. */
export const SHUTDOWN_DEADLINE_MS = 30_000;

/** One step of an ordered shutdown (docs/reliability.md "Shutdown"). */
export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

/**
 * On SIGTERM or SIGINT: run `steps` in order (each waits for the previous one; a failing step
 * is logged and the next runs), then `app.close()` (the queue, the HTTP client, the pools),
 * then exit 0 (docs/operations.md). Nest's own shutdown hooks would re-raise the signal and exit by
 * signal instead. A shutdown still running after {@link SHUTDOWN_DEADLINE_MS} exits 1.
 */
export function exitGracefullyOnSignals(
  app: INestApplicationContext,
  logger: LoggerService,
  steps: ShutdownStep[] = [],
): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    const started = Date.now();
    logger.log(`${signal} received: finishing in-flight work`, 'Shutdown');
    setTimeout(() => {
      logger.error('Shutdown deadline passed; exiting', undefined, 'Shutdown');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    void (async () => {
      for (const step of steps) {
        try {
          await step.run();
          logger.log(`${step.name}: done after ${Date.now() - started} ms`, 'Shutdown');
        } catch (error) {
          logger.error(`${step.name} failed: ${(error as Error).message}`, undefined, 'Shutdown');
        }
      }
      try {
        await app.close();
      } catch (error) {
        logger.error(`Shutdown failed: ${(error as Error).message}`, undefined, 'Shutdown');
        process.exit(1);
      }
      logger.log(`Shut down cleanly in ${Date.now() - started} ms`, 'Shutdown');
      process.exit(0);
    })();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
