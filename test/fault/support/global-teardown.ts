import { rmSync, writeFileSync } from 'node:fs';
import { RESULTS_FILE, SERVICE_DIST } from './config';
import { readRows, renderReport, renderTable } from './results';

/** Once after the suite: prints the figures table and writes it to test/fault/results/latest.md. */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env.FAULT_RESULTS_DIR;
  if (!dir) return;
  const rows = readRows(dir);
  const totalMs = Date.now() - Number(process.env.FAULT_SUITE_STARTED_AT ?? Date.now());
  if (rows.length > 0) {
    process.stdout.write(
      `\nFault-injection figures (${(totalMs / 1000).toFixed(1)} s):\n\n${renderTable(rows)}\n\n`,
    );
    writeFileSync(RESULTS_FILE, renderReport(rows, totalMs, SERVICE_DIST));
    process.stdout.write(`written to ${RESULTS_FILE}\n`);
  }
  rmSync(dir, { recursive: true, force: true });
}
