// The report of bench/run.mjs: the table (measure, ours, ceiling, ratio, goal, met?) built from
// each measure's rows, printed, and written with the machine and the raw figures to
// bench/results/; and the regression guard of --guard.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiLog } from './api-process.mjs';
import { benchDir, notes } from './harness.mjs';
import { BASELINE_TOLERANCE } from './settings.mjs';
import { ratioOf } from './stats.mjs';

/** A whole number as the table writes it: 10,000. */
export const count = (n) => n.toLocaleString('en-US');

function formatValue(value, unit) {
  if (value == null || Number.isNaN(value)) return 'n/a';
  if (unit === 'ms') return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
  if (unit === 'MB') return `${value.toFixed(1)} MB`;
  return `${Math.round(value).toLocaleString('en-US')} ${unit}`;
}
function formatRatio(ratio) {
  if (ratio == null || Number.isNaN(ratio)) return '—';
  if (ratio >= 10) return ratio.toFixed(1);
  if (ratio >= 0.1) return ratio.toFixed(2);
  return ratio.toPrecision(2);
}

/**
 * The table's rows, from the run's result `r`: each of `measures` (in the table's order) adds
 * its own with `addRows(r, add, sizes)`. ratio = ours / ceiling; where no ceiling is measured
 * (token exchange, latency) the ceiling column holds the goal and ratio = ours / goal.
 */
export function buildRows(r, sizes, measures) {
  const rows = [];
  const add = (
    measure,
    {
      ours,
      ceiling,
      unit,
      label,
      ratio,
      goal = null,
      met = null,
      guard = null,
      baseline = null,
      guardRatio,
    },
  ) =>
    rows.push({
      measure,
      unit,
      ours_value: ours ?? null,
      ceiling_value: ceiling ?? null,
      ceiling_label: label,
      ratio: ratio === undefined ? ratioOf(ours, ceiling) : ratio,
      goal,
      met,
      // The ratio this row's goal asks for, for --guard (null: not guarded).
      guard,
      // Its key in bench/baseline.json, held to BASELINE_TOLERANCE of it by --guard (null: none),
      // and the ratio --guard compares (the row's own unless the measure gives a steadier one).
      baseline,
      guard_ratio:
        guardRatio === undefined
          ? ratio === undefined
            ? ratioOf(ours, ceiling)
            : ratio
          : guardRatio,
    });
  for (const measure of measures) measure.addRows(r, add, sizes);
  return rows;
}

function displayRow(row) {
  const ceiling =
    row.ceiling_value == null
      ? '—'
      : `${formatValue(row.ceiling_value, row.unit)} (${row.ceiling_label})`;
  let ours = formatValue(row.ours_value, row.unit);
  if (row.unit === 'MB' && row.ours_value != null) {
    ours += ` (+${(row.ours_value - row.ceiling_value).toFixed(1)} MB)`;
  }
  return [
    row.measure,
    ours,
    ceiling,
    formatRatio(row.ratio),
    row.goal ?? '—',
    row.met == null ? '—' : row.met ? 'yes' : 'no',
  ];
}

const HEADER = ['measure', 'ours', 'ceiling', 'ratio', 'goal', 'met?'];

/** The table as aligned plain text, for the console. */
export function textTable(rows) {
  const cells = [HEADER, ...rows.map(displayRow)];
  const widths = HEADER.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c) =>
    c
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    line(cells[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.slice(1).map(line),
  ].join('\n');
}

function markdown(rows, result, quick) {
  const m = result.machine;
  const command = `node bench/run.mjs${quick ? ' --quick' : ''}`;
  const lines = [
    `Benchmark (${quick ? 'quick' : 'full'} run, ${result.startedAt.toISOString()}): ` +
      `${m.cpu_count} × ${m.cpu_model}, ${m.total_memory_gb} GB, Node ${m.node}, ` +
      `PostgreSQL ${m.postgresql}; \`${command}\` took ${Math.round(result.runtimeSeconds)} s.`,
    '',
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${displayRow(row).join(' | ')} |`),
    '',
    'ratio = ours / ceiling, or ours / goal where the ceiling column holds the goal ' +
      '(throughputs: higher is better; latencies and memory: lower is better). Ceilings are ' +
      'measured in the same run on the same machine, with the load generator on it too.',
  ];
  if (notes.length) lines.push('', 'Notes:', ...notes.map((n) => `- ${n}`));
  return lines.join('\n') + '\n';
}

/**
 * Writes bench/results/<timestamp>.json, latest.json and latest.md (with --quick:
 * <timestamp>-quick.json, latest-quick.json and latest-quick.md). Returns the paths written.
 */
export function writeResults(rows, result, sizes, quick) {
  const dir = join(benchDir, 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = result.startedAt.toISOString().replace(/[:.]/g, '-');
  const suffix = quick ? '-quick' : '';
  const json = {
    mode: quick ? 'quick' : 'full',
    started_at: result.startedAt.toISOString(),
    runtime_seconds: +result.runtimeSeconds.toFixed(1),
    machine: result.machine,
    sizes,
    rows: rows.map((row) => ({
      ...row,
      display: Object.fromEntries(HEADER.map((h, i) => [h, displayRow(row)[i]])),
    })),
    details: {
      memory: result.memory,
      ingest: result.ingest,
      latency_ms: result.latencies,
      dispatch: result.dispatch,
      reads: result.reads,
      token_exchange: result.tokenLoad,
      scale: result.scale,
      scale_out: result.scaleOut,
      ordering: result.ordering,
      transformed: result.transformed,
      api_exit: result.apiExit,
      api_log: apiLog,
    },
    notes,
  };
  const text = JSON.stringify(json, null, 2) + '\n';
  const files = [`${stamp}${suffix}.json`, `latest${suffix}.json`];
  for (const file of files) writeFileSync(join(dir, file), text);
  writeFileSync(join(dir, `latest${suffix}.md`), markdown(rows, result, quick));
  return [...files, `latest${suffix}.md`].map((f) => join('bench/results', f));
}

/**
 * The regression guard (--guard): prints a line for each guarded row whose ratio fell below
 * half of its goal (lib/settings.mjs GOALS), or, for a row with a baseline (ingest, dispatch),
 * whose guard ratio fell below BASELINE_TOLERANCE of the committed baseline
 * (bench/baseline.json). `final` false: the baseline lines are printed as to be re-measured.
 * @returns whether every row passed, and the baseline keys of the rows that did not.
 */
export function guard(rows, baseline, final = true) {
  const fallen = rows.filter((row) => row.guard !== null && !(row.ratio >= row.guard / 2));
  for (const row of fallen) {
    console.log(
      `regression: ${row.measure}: ratio ${formatRatio(row.ratio)} is below half of its goal (${row.goal})`,
    );
  }
  const below = rows.filter(
    (row) =>
      row.baseline !== null &&
      baseline?.[row.baseline] != null &&
      !(row.guard_ratio >= BASELINE_TOLERANCE * baseline[row.baseline]),
  );
  for (const row of below) {
    const floor = BASELINE_TOLERANCE * baseline[row.baseline];
    console.log(
      `${final ? 'regression' : 'below baseline, measuring again'}: ${row.measure}: ratio ` +
        `${formatRatio(row.guard_ratio)} is below ${formatRatio(floor)} ` +
        `(${BASELINE_TOLERANCE} × its baseline ${baseline[row.baseline]}, bench/baseline.json)`,
    );
  }
  const ok = fallen.length === 0 && below.length === 0;
  if (ok) {
    const held = rows
      .filter((row) => row.baseline !== null && baseline?.[row.baseline] != null)
      .map(
        (row) =>
          `${row.baseline} ${formatRatio(row.guard_ratio)} (baseline ${baseline[row.baseline]})`,
      );
    console.log(
      'guard: every ratio is at least half of its goal' +
        (held.length
          ? `, and within ${BASELINE_TOLERANCE} of its baseline: ${held.join(', ')}`
          : ''),
    );
  }
  return { ok, below: below.map((row) => row.baseline), fallen: fallen.length };
}
