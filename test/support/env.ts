import { newRunPrefix, RUN_PREFIX_VARIABLE } from './redis-keys';

/**
 * Environment of every e2e test file, set before any module loads. global-setup.ts migrates
 * a template database once; each test file then runs on a copy of its own (created by
 * file-database.ts), so one file's workers and sweepers never meet another file's deliveries,
 * and the development database is never touched.
 */
export const TEMPLATE_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/campaign_api_test';

/** Name of the copies of the template: `<template>_f<pid>_<random>`. */
export function fileDatabasePrefix(): string {
  return `${new URL(TEMPLATE_DATABASE_URL).pathname.slice(1)}_f`;
}

function fileDatabaseUrl(): string {
  const url = new URL(TEMPLATE_DATABASE_URL);
  url.pathname = `/${fileDatabasePrefix()}${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  return url.toString();
}

/** This test file's own database, a copy of the migrated template. */
export const TEST_DATABASE_URL = fileDatabaseUrl();

process.env.NODE_ENV = 'test';
process.env.DATABASE_URL = TEST_DATABASE_URL;
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
process.env.JWT_SECRET = 'test-only-jwt-secret-0123456789abcdefghijklmnop';
process.env.SECRETS_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
process.env.TOKEN_TTL_SECONDS = '900';
// Each test file gets its own BullMQ keys, so one file's worker never takes another's jobs;
// they all start with the run's prefix, whose keys global-teardown.ts deletes.
process.env[RUN_PREFIX_VARIABLE] ??= newRunPrefix();
process.env.QUEUE_PREFIX = `${process.env[RUN_PREFIX_VARIABLE]}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
// Tests exchange tokens and call the API far more often than a customer may; the rate-limit
// tests set their own low limits.
process.env.RATE_LIMIT_TOKEN_PER_MIN = '1000000';
process.env.RATE_LIMIT_API_PER_MIN = '1000000';
process.env.RATE_LIMIT_AUTH_FAILURES_PER_MIN = '1000000';

// An uncaught error is reported by Jest with its stack filtered of Node's own frames, which can
// leave nothing; print it whole first, so an error raised inside Node's streams says where.
process.on('uncaughtExceptionMonitor', (error, origin) => {
  process.stderr.write(`${origin} in ${process.pid}: ${error.stack ?? String(error)}\n`);
});
