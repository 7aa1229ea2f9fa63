// First: starts tracing, when asked for, before the modules it instruments load (docs/operations.md#traces).
import './tracing';
import 'reflect-metadata';
import { config as loadDotenv } from 'dotenv';
import { loadConfig, ConfigError } from './config/app-config';
import { prepareDatabase } from './database/prepare-database';
import { createApp } from './app.factory';
import { exitGracefullyOnSignals } from './common/graceful-shutdown';
import { shutdownSequence } from './shutdown-sequence';
import { Logger, PinoLogger } from 'nestjs-pino';
import type { AddressInfo } from 'node:net';
import { symbols } from 'pino';
import { startBanner } from './start-banner';

/**
 * Resolves once pino's stdout stream (an asynchronous sonic-boom) has written the lines it
 * holds (its `drain` event), or after 500 ms at most; at once when it is idle.
 */
function logLinesWritten(): Promise<void> {
  const stream = (PinoLogger.root as unknown as Record<symbol, unknown>)[symbols.streamSym] as
    (NodeJS.EventEmitter & { _writing?: boolean }) | undefined;
  if (!stream?._writing) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 500);
    stream.once('drain', () => (clearTimeout(timer), resolve()));
  });
}

/**
 * HTTP entrypoint (`npm start`): validates configuration (one line naming the variable on
 * failure), creates the database if missing, applies pending migrations, then serves on
 * `HOST:PORT` until SIGTERM/SIGINT, then finishes in-flight work and exits 0. Once listening,
 * it logs the JSON `listening on` line on stdout and prints a short banner on stderr with the
 * API's, the dashboard's and the docs' URLs (docs/operations.md#logs).
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
  const bound = app.getHttpServer().address() as AddressInfo | string | null;
  const address: AddressInfo =
    typeof bound === 'object' && bound
      ? bound
      : { address: config.host, family: 'IPv4', port: config.port };
  const port = address.port;
  // Through the application's pino stream, so the line comes after Nest's start-up lines (a
  // direct stdout write overtook the ones pino had not written yet), and at `info` whatever
  // LOG_LEVEL is: scripts and tests wait for it (docs/operations.md#logs).
  PinoLogger.root
    .child({ context: 'NestApplication' }, { level: 'info' })
    .info(
      { migrations_applied: applied },
      `Campaign API listening on http://${config.host}:${port}`,
    );
  // For the person at the terminal: on stderr, so stdout stays JSON lines for log shippers;
  // after pino has written the lines above, so that the banner is the last thing on screen.
  await logLinesWritten();
  process.stderr.write(
    startBanner({ address, databaseUrl: config.databaseUrl, migrationsApplied: applied }),
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
