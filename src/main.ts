import 'reflect-metadata';
import { config as loadDotenv } from 'dotenv';
import { loadConfig, ConfigError } from './config/app-config';
import { prepareDatabase } from './database/prepare-database';
import { createApp } from './app.factory';
import { exitGracefullyOnSignals } from './common/graceful-shutdown';
import { shutdownSequence } from './shutdown-sequence';
import { Logger, PinoLogger } from 'nestjs-pino';

/**
 * HTTP entrypoint (`npm start`): validates configuration (one line naming the variable on
 * failure), creates the database if missing, applies pending migrations, then serves on
 * `HOST:PORT` until SIGTERM/SIGINT, then finishes in-flight work and exits 0.
 */
async function bootstrap(): Promise<void> {
  loadDotenv({ quiet: true });
  const config = loadConfig();
  const applied = await prepareDatabase(config.databaseUrl);
  const app = await createApp(config);
  exitGracefullyOnSignals(
    app,
    app.get(Logger),
    shutdownSequence(app, { worker: config.runWorker }),
  );
  // HTTP_REUSE_PORT: several API processes of one machine share the port; the kernel spreads
  // connections over them (docs/operations.md#several-processes-on-one-machine).
  await app.listen({ port: config.port, host: config.host, reusePort: config.httpReusePort } as {
    port: number;
    host: string;
  });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Through the application's pino stream, so the line comes after Nest's start-up lines (a
  // direct stdout write overtook the ones pino had not written yet), and at `info` whatever
  // LOG_LEVEL is: scripts and tests wait for it (docs/operations.md#logs).
  PinoLogger.root
    .child({ context: 'NestApplication' }, { level: 'info' })
    .info(
      { migrations_applied: applied },
      `Campaign API listening on http://${config.host}:${port}`,
    );
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Campaign API failed to start: ${message}\n`);
  }
  process.exit(1);
});
