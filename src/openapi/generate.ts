import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { createApp } from '../app.factory';
import { loadConfig } from '../config/app-config';
import { buildOpenApiDocument, serializeOpenApi } from './openapi';

/**
 * Writes `openapi.json` at the project root (`npm run openapi`). CI fails when the committed
 * file differs from what the code generates (test/openapi.e2e-spec.ts).
 */
async function main(): Promise<void> {
  loadDotenv({ quiet: true });
  const app = await createApp(
    loadConfig({ ...process.env, RUN_WORKER: 'false', LOG_LEVEL: 'warn' }),
  );
  try {
    const target = join(__dirname, '..', '..', 'openapi.json');
    writeFileSync(target, serializeOpenApi(buildOpenApiDocument(app)));
    process.stderr.write(`wrote ${target}\n`);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`openapi: ${(error as Error).message}\n`);
  process.exit(1);
});
