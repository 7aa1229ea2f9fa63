import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { createPreviewApp } from '../app.factory';
import { loadConfig } from '../config/app-config';
import { buildOpenApiDocument, serializeOpenApi } from './openapi';

/**
 * Writes `openapi.json` at the project root (`npm run openapi`), or at the path given as the
 * first argument (`npm run lint:openapi` lints such a copy). CI fails when the committed file
 * differs from what the code generates (test/openapi.e2e-spec.ts). Needs neither PostgreSQL
 * nor Redis: the application is built in preview mode.
 */
async function main(): Promise<void> {
  loadDotenv({ quiet: true });
  const app = await createPreviewApp(loadConfig({ ...process.env, RUN_WORKER: 'false' }));
  try {
    const target = resolve(process.argv[2] ?? join(__dirname, '..', '..', 'openapi.json'));
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
