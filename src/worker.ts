// First: starts tracing, when asked for, before the modules it instruments load (docs/operations.md#traces).
import './tracing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { config as loadDotenv } from 'dotenv';
import { Logger } from 'nestjs-pino';
import { ConfigError, loadConfig } from './config/app-config';
import { prepareDatabase } from './database/prepare-database';
import { WorkerModule } from './worker.module';
import { exitGracefullyOnSignals } from './common/graceful-shutdown';
import { shutdownSequence } from './shutdown-sequence';

/**
 * Worker entrypoint (`npm run start:worker`): delivers webhooks from the queue without serving
 * HTTP, so workers scale out as separate processes. On SIGTERM it finishes the attempts under
 * way, closes the queue and the pool, and exits 0.
 */
async function bootstrap(): Promise<void> {
  loadDotenv({ quiet: true });
  const config = loadConfig();
  await prepareDatabase(config.databaseUrl);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    bufferLogs: true,
    // Errors surface to the caller (one line at start, optional look-ups at shutdown), never process.exit.
    abortOnError: false,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  exitGracefullyOnSignals(app, logger, shutdownSequence(app, { worker: true }));
  for (const warning of config.warnings) logger.warn(warning, 'Config');
  await app.init();
  logger.log(`Delivery worker running (concurrency ${config.webhookWorkerConcurrency})`, 'Worker');
}

bootstrap().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    error instanceof ConfigError
      ? `${message}\n`
      : `Campaign API worker failed to start: ${message}\n`,
  );
  process.exit(1);
});
