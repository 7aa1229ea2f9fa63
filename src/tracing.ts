/**
 * OpenTelemetry tracing (docs/operations.md#traces), the first module `src/main.ts`,
 * `src/worker.ts` and `src/cli.ts` load: the SDK must patch `http`, Fastify, `pg` and `ioredis`
 * before anything requires them. Reads `.env` like the entry points do, then starts the SDK
 * only when an `OTEL_*` variable asks for traces (`tracingRequested`); otherwise nothing of
 * OpenTelemetry is loaded and every tracing hook is a no-op.
 */
import { config as loadDotenv } from 'dotenv';
import { tracingRequested } from './tracing/tracing-env';

loadDotenv({ quiet: true });
if (tracingRequested(process.env)) {
  // Synchronous on purpose: the SDK must run before the importer's next import.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./tracing/otel-sdk') as typeof import('./tracing/otel-sdk')).startTracing();
}
