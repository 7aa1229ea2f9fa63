import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { REPO_ROOT } from './config';

/** One row of the figures table: a scenario, or one deployment of a scenario. */
export interface ResultRow {
  scenario: string;
  file: string;
  startedAt: number;
  /** From the scenario's start to the end of its clean-up. */
  runtimeMs: number;
  /** Leads stored in the campaign (= `lead.created` deliveries expected). */
  leads: number;
  uploads: string;
  deliveriesSucceeded: number;
  deliveries: number;
  copies: number;
  distinctIds: number;
  /** Receiver copies − distinct webhook-ids (retries of failed attempts included). */
  duplicates: number;
  /** Copies answered 2xx − distinct ids answered 2xx: the receiver accepted the same event again. */
  duplicates2xx: number;
  attempts: number;
  failedAttempts: number;
  /** Receiver copies with no attempt recorded for them. */
  unrecordedCopies: number;
  /** From the last 202 to every delivery succeeded; null when that never happened. */
  timeToFullDeliveryMs: number | null;
  /** Scenario figures: shutdown times, statuses during an outage, … */
  notes: string[];
  violations: string[];
}

/** The directory the rows of this run go to (set by the global setup). */
export function rowsDir(): string {
  const dir =
    process.env.FAULT_RESULTS_DIR ?? join(tmpdir(), `campaign-api-fault-rows-${process.ppid}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function writeRow(row: ResultRow): void {
  const name = `${row.startedAt}-${row.scenario.replace(/[^a-z0-9-]+/gi, '_')}.json`;
  writeFileSync(join(rowsDir(), name), JSON.stringify(row, null, 2));
}

export function readRows(dir: string): ResultRow[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names
    .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as ResultRow)
    .sort((a, b) => a.startedAt - b.startedAt || a.scenario.localeCompare(b.scenario));
}

const seconds = (ms: number | null): string => (ms === null ? '—' : `${(ms / 1000).toFixed(2)} s`);
const n = (value: number): string => value.toLocaleString('en-US');

/** The markdown table (one row per scenario or deployment) and the violations under it. */
export function renderTable(rows: ResultRow[]): string {
  const lines = [
    '| scenario | leads (uploads) | delivered | receiver copies | distinct ids | duplicates (2xx) | attempts (failed) | unrecorded copies | last 202 → all delivered | runtime | figures | result |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario} | ${n(r.leads)} (${r.uploads}) | ${n(r.deliveriesSucceeded)}/${n(r.deliveries)} | ${n(r.copies)} | ${n(r.distinctIds)} | ${n(r.duplicates)} (${n(r.duplicates2xx)}) | ${n(r.attempts)} (${n(r.failedAttempts)}) | ${n(r.unrecordedCopies)} | ${seconds(r.timeToFullDeliveryMs)} | ${seconds(r.runtimeMs)} | ${r.notes.join('; ').replace(/\|/g, '\\|')} | ${r.violations.length === 0 ? 'pass' : `**FAIL (${r.violations.length})**`} |`,
    );
  }
  const failing = rows.filter((r) => r.violations.length > 0);
  if (failing.length > 0) {
    lines.push('', 'Violations:', '');
    for (const r of failing) {
      lines.push(`- **${r.scenario}**`);
      for (const v of r.violations) lines.push(`  - ${v.replace(/\n/g, ' ')}`);
    }
  }
  return lines.join('\n');
}

/** The results file: where and when it ran, the table, what the columns mean. */
export function renderReport(rows: ResultRow[], totalMs: number, dist: string): string {
  const cpu = cpus();
  const inRepo = relative(REPO_ROOT, dist);
  const shown = inRepo.startsWith('..') || isAbsolute(inRepo) ? dist : inRepo;
  return [
    '# Fault-injection suite: latest run',
    '',
    `${new Date().toISOString()}: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, ` +
      `${(totalmem() / 2 ** 30).toFixed(1)} GB, Node ${process.version}; ` +
      `\`npm run test:fault\` took ${seconds(totalMs)} against \`${shown}\`.`,
    '',
    renderTable(rows),
    '',
    'Columns: *delivered* = deliveries succeeded / recorded; *duplicates* = receiver copies − distinct ' +
      'webhook-ids (retries after a failed attempt included), in brackets the copies the receiver ' +
      'accepted (2xx) more than once; *unrecorded copies* = copies the receiver got beyond the attempts ' +
      'recorded for their webhook-id; *last 202 → all delivered* = from the last accepted upload to every ' +
      'delivery succeeded (polled every 100 ms).',
    '',
  ].join('\n');
}
