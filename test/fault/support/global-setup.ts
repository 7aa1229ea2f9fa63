import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertDistPresent, REPO_ROOT, SERVICE_DIST } from './config';
import { assertStoresReachable } from './stores';

/**
 * Once before the suite: the machine's PostgreSQL and Redis must be up (the suite never starts
 * or stops them), `<repo>/dist` is rebuilt when stale (not a FAULT_SERVICE_DIST copy: that one
 * is the caller's), and the scenarios' rows get a directory of their own.
 */
export default async function globalSetup(): Promise<void> {
  process.env.FAULT_SUITE_STARTED_AT = String(Date.now());
  await assertStoresReachable();
  if (!process.env.FAULT_SERVICE_DIST) {
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-if-needed.cjs')], {
      stdio: 'inherit',
    });
  }
  assertDistPresent();
  process.stdout.write(`\nfault suite: service from ${SERVICE_DIST}\n`);
  process.env.FAULT_RESULTS_DIR = mkdtempSync(join(tmpdir(), 'campaign-api-fault-rows-'));
}
