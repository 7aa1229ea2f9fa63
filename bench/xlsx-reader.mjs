#!/usr/bin/env node
// The bounded XLSX reader (src/leads/spreadsheet/xlsx-sheet-reader.ts) against exceljs's
// streaming WorkbookReader (as src/leads/spreadsheet/spreadsheet-reader.ts uses it), on one
// generated workbook: N rows (default 200,000) × 7 columns, the CRM export of
// bench/spreadsheet-import.mjs with `--distinct D` of its columns different on every row (default
// 7: about 1.4 million distinct shared strings; 4 is that benchmark's file), written by exceljs's
// WorkbookWriter with `useSharedStrings: true`, so that the shared-strings table comes AFTER the
// sheet in the archive, as spreadsheet programs write it.
//
// Each reader runs `--runs` times (default 3), in turn, each run in a fresh child process with
// the Node flags of `npm start` (--max-semi-space-size=16). A run reads every row and prints:
// rows/s; the CPU time it took (all threads: less sensitive than wall time to other work on the
// machine); the peak V8 heap used (sampled every 1,000 rows and every 10 ms); the peak
// ArrayBuffer memory (outside the heap: buffers, typed arrays); the peak RSS (the kernel's
// VmHWM), also over the process's RSS before reading. Both readers' rows (numbers and cells as
// text, not trimmed) are hashed and the hashes compared. Then the bounded reader runs once more
// with its heap capped (2 MiB semi-spaces, `--max-old-space-size` of `--heap-cap` MiB, default
// 16) to show the heap it needs. Asserts nothing.
//
//   npm run build && node bench/xlsx-reader.mjs [--rows N] [--distinct D] [--runs R] [--file F]
//                                                [--readers bounded,exceljs] [--heap-cap MiB]
//
// --file F reads (or, if missing, writes and keeps) the workbook at F instead of a temp file.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';

const root = join(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    distinct: { type: 'string', default: '7' },
    runs: { type: 'string', default: '3' },
    file: { type: 'string' },
    'heap-cap': { type: 'string', default: '16' },
    readers: { type: 'string', default: 'bounded,exceljs' },
    child: { type: 'string' },
  },
});
const MiB = 1024 * 1024;
const mib = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;
const log = (line) => process.stdout.write(`${line}\n`);

/** The limits as the service is meant to read an upload (the examples of XlsxLimits). */
const LIMITS = {
  maxRows: 1_048_576,
  maxColumns: 200,
  maxCellChars: 1_000,
  maxEntryBytes: 1024 * MiB,
  maxTotalBytes: 1536 * MiB,
  maxCompressionRatio: 200,
  maxSharedStrings: 4_194_304,
  maxSharedStringBytes: 128 * MiB,
  maxXmlDepth: 64,
};

if (args.child) {
  await child(args.child, args.file);
} else {
  await main();
}

async function main() {
  const rows = Number(args.rows);
  const distinct = Number(args.distinct);
  const runs = Number(args.runs);
  const reader = join(root, 'dist/leads/spreadsheet/xlsx-sheet-reader.js');
  if (!existsSync(reader)) throw new Error(`${reader} is missing: npm run build first`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-xlsx-reader-'));
  const file = args.file ?? join(dir, 'crm-export.xlsx');
  try {
    if (!existsSync(file)) {
      const started = performance.now();
      await writeWorkbook(file, rows, distinct);
      log(`Wrote ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    log(
      `File: ${rows.toLocaleString('en')} rows × 7 columns, ${distinct} distinct per row, ` +
        `${mib(statSync(file).size)}; entries in archive order: ${entryOrder(file)}`,
    );
    const hashes = new Map();
    for (let run = 1; run <= runs; run++) {
      // In turn, so that a change in the machine's load falls on both alike.
      for (const name of args.readers.split(',')) {
        const result = runChild(name, file, ['--max-semi-space-size=16']);
        hashes.set(name, result.hash);
        log(`${name.padEnd(8)} run ${run}: ${describe(result)}`);
      }
    }
    if (hashes.size === 2) {
      log(
        hashes.get('bounded') === hashes.get('exceljs')
          ? `Same rows from both readers (sha256 ${hashes.get('bounded').slice(0, 16)}…)`
          : `ROWS DIFFER: bounded ${hashes.get('bounded')} exceljs ${hashes.get('exceljs')}`,
      );
    }
    const cap = Number(args['heap-cap']);
    const flags = ['--max-semi-space-size=2', `--max-old-space-size=${cap}`];
    log(`bounded with ${flags.join(' ')}: ${describe(runChild('bounded', file, flags))}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runChild(name, file, nodeArgs) {
  const result = spawnSync(
    process.execPath,
    [...nodeArgs, import.meta.filename, '--child', name, '--file', file],
    { encoding: 'utf8', maxBuffer: 16 * MiB },
  );
  if (result.status !== 0) {
    return { error: (result.stderr || `exit ${result.status}`).trim().split('\n').slice(-3) };
  }
  return JSON.parse(result.stdout);
}

function describe(r) {
  if (r.error) return `FAILED: ${r.error.join(' | ')}`;
  return (
    `${r.rows.toLocaleString('en')} rows in ${r.seconds.toFixed(2)} s ` +
    `(${Math.round(r.rows / r.seconds).toLocaleString('en')} rows/s; CPU ${r.cpuSeconds.toFixed(2)} s); peak heap used ` +
    `${mib(r.peakHeap)}, peak ArrayBuffers ${mib(r.peakArrayBuffers)}, peak RSS ${mib(r.peakRss)} ` +
    `(${mib(r.peakRss - r.startRss)} over ${mib(r.startRss)} before reading)`
  );
}

/** The archive's entries in the order stored (from the central directory). */
function entryOrder(file) {
  const bytes = readFileSync(file);
  const names = [];
  for (let i = bytes.lastIndexOf(Buffer.from('PK\x05\x06')), at = bytes.readUInt32LE(i + 16); ;) {
    if (bytes.readUInt32LE(at) !== 0x02014b50) break;
    const nameLength = bytes.readUInt16LE(at + 28);
    names.push(bytes.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return names.filter((n) => /sheet|sharedStrings/.test(n)).join(', ');
}

async function writeWorkbook(file, rows, distinct) {
  const headers = [
    'Mobile',
    'First Name',
    'Last Name',
    'E-mail',
    'Company Name',
    'Job Title',
    'Notes',
  ];
  const notes =
    'Met at the spring open house; asked about the three-bedroom listings near the park and financing';
  // Columns in the order they are made distinct: the CRM export's 4 first.
  const order = [0, 1, 3, 6, 2, 4, 5];
  const unique = new Set(order.slice(0, distinct));
  const row = (i) => {
    const cells = [
      i % 50 === 7
        ? `55-${i}`
        : `(${212 + (i % 7)}) ${String(2_000_000 + i).replace(/^(\d{3})/, '$1-')}`,
      `Ada${i}`,
      'Lovelace',
      `ada.lovelace${i}@example.com`,
      'Analytical Engines Ltd',
      'CTO',
      `${notes} #${i}`,
    ];
    for (const c of [2, 4, 5]) if (unique.has(c)) cells[c] = `${cells[c]} ${i}`;
    return cells;
  };
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: file,
    useSharedStrings: true,
  });
  const sheet = workbook.addWorksheet('Leads');
  sheet.addRow(headers).commit();
  for (let i = 0; i < rows; i++) sheet.addRow(row(i)).commit();
  sheet.commit();
  await workbook.commit();
}

/** One reader, in this (child) process: prints its figures as JSON. */
async function child(name, file) {
  const hash = createHash('sha256');
  let peakHeap = 0;
  let peakArrayBuffers = 0;
  const sample = () => {
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    if (heapUsed > peakHeap) peakHeap = heapUsed;
    if (arrayBuffers > peakArrayBuffers) peakArrayBuffers = arrayBuffers;
  };
  const rows = name === 'bounded' ? boundedRows(file) : exceljsRows(file);
  const status = () => readFileSync('/proc/self/status', 'utf8');
  const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status())[1]) * 1024;
  const startRss = kib('VmRSS');
  const timer = setInterval(sample, 10);
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let count = 0;
  for await (const [number, cells] of rows) {
    hash.update(`${number}\t${cells.join('\t')}\n`);
    if (++count % 1000 === 0) sample();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  clearInterval(timer);
  sample();
  const result = {
    rows: count,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakHeap,
    peakArrayBuffers,
    peakRss: kib('VmHWM'),
    startRss,
    heapLimit: getHeapStatistics().heap_size_limit,
    hash: hash.digest('hex'),
  };
  process.stdout.write(JSON.stringify(result));
}

async function* boundedRows(file) {
  const { readXlsxRows } = await import(join(root, 'dist/leads/spreadsheet/xlsx-sheet-reader.js'));
  const tmp = mkdtempSync(join(tmpdir(), 'bench-xlsx-tmp-'));
  try {
    for await (const row of readXlsxRows(file, LIMITS, tmp)) yield [row.number, row.cells];
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function* exceljsRows(file) {
  // Loaded here, not at the top: the bounded reader's process does not load exceljs.
  const { default: ExcelJS } = await import('exceljs');
  const { xlsxCellText } = await import(join(root, 'dist/leads/spreadsheet/spreadsheet-reader.js'));
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  });
  for await (const sheet of workbook) {
    for await (const row of sheet) {
      const values = row.values;
      const cells = [];
      for (let c = 1; c < Math.min(values.length, LIMITS.maxColumns + 1); c++) {
        cells.push(xlsxCellText(values[c]).slice(0, LIMITS.maxCellChars));
      }
      while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
      if (cells.length > 0) yield [row.number, cells];
    }
    break;
  }
}
