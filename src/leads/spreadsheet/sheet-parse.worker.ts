import { parentPort, workerData } from 'node:worker_threads';
import { DomainError } from '../../common/domain-error';
import { leadOfRow, suggestMapping } from './column-mapping';
import type { ColumnMapping, SpreadsheetFormat } from '..';
import type { SheetLimits, XlsxArchiveLimits } from './spreadsheet-limits';
import { readSheetFile, type SheetRow } from './spreadsheet-reader';

/** What a parse thread is started with (`SpreadsheetFileReader`). */
export interface SheetParseTask {
  path: string;
  format: SpreadsheetFormat;
  limits: SheetLimits & XlsxArchiveLimits;
  /** A directory the reader may spill to; the parent removes it. */
  tmpDir: string;
  /** The thread's own CPU time budget, in ms. */
  cpuMs: number;
  /**
   * `scan`: read the file through and answer once with its header, sample and row count;
   * `leads`: send the data rows as leads under `mapping`, in batches, one per `next` message.
   */
  mode: 'scan' | 'leads';
  /** Scan: data rows kept as the sample. */
  sampleRows: number;
  /** Leads: the column mapping (only mapped cells leave the thread). */
  mapping: ColumnMapping | null;
  /** Leads: data rows already imported, skipped here. */
  skipRows: number;
  /** Leads: most rows in one batch. */
  batchRows: number;
}

/** A batch of data rows as leads: each row's number in the file and its lead, in file order. */
export interface LeadBatch {
  rowNumbers: number[];
  leads: Record<string, unknown>[];
}

/** What the reader of a file learns from reading it through. */
export interface SheetScan {
  headers: string[];
  sample: string[][];
  /** Non-blank data rows (the header row not counted). */
  totalRows: number;
  suggestedMapping: ColumnMapping;
}

/** A message from a parse thread to its parent. */
export type SheetParseMessage =
  | { type: 'scan'; scan: SheetScan }
  | { type: 'leads'; batch: LeadBatch }
  | { type: 'end' }
  | { type: 'error'; message: string; field: string | null };

const task = workerData as SheetParseTask;
const port = parentPort!;

// Errors here end as messages, never as stack traces: capturing stacks only costs time (the
// CSV parser makes an error object for every row of another width than the header's).
Error.stackTraceLimit = 0;

/** Ends the thread with a refusal the parent reports as the file's problem. */
function refuse(message: string, field: string | null): never {
  port.postMessage({ type: 'error', message, field } satisfies SheetParseMessage);
  process.exit(1);
}

// The CPU budget, checked between the reader's I/O turns: a file that keeps the thread busy
// (millions of rows a row at a time, say) is stopped even when it yields no row.
const cpuBudgetMicros = task.cpuMs * 1000;
const threadCpu = (process as { threadCpuUsage?: () => { user: number; system: number } })
  .threadCpuUsage;
if (threadCpu !== undefined) {
  setInterval(() => {
    const { user, system } = threadCpu();
    if (user + system > cpuBudgetMicros) {
      refuse(`file took more than ${Math.round(task.cpuMs / 1000)} s of CPU time to read`, 'file');
    }
  }, 200).unref();
}

async function scan(rows: AsyncIterable<SheetRow>): Promise<SheetScan | null> {
  let headers: string[] | null = null;
  const sample: string[][] = [];
  let totalRows = 0;
  for await (const row of rows) {
    if (headers === null) {
      headers = row.cells;
      continue;
    }
    totalRows += 1;
    if (sample.length < task.sampleRows) sample.push(row.cells);
  }
  if (headers === null) return null;
  return { headers, sample, totalRows, suggestedMapping: suggestMapping(headers) };
}

/** Resolves at the parent's next `next` message. */
function nextRequest(): Promise<void> {
  return new Promise((resolve) => port.once('message', () => resolve()));
}

async function sendLeads(rows: AsyncIterable<SheetRow>, mapping: ColumnMapping): Promise<void> {
  let header = true;
  let skip = task.skipRows;
  let batch: LeadBatch = { rowNumbers: [], leads: [] };
  const send = async () => {
    port.postMessage({ type: 'leads', batch } satisfies SheetParseMessage);
    batch = { rowNumbers: [], leads: [] };
    await nextRequest();
  };
  await nextRequest();
  for await (const row of rows) {
    if (header) {
      header = false;
      continue;
    }
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    // Only the mapped cells cross to the parent: what it would only throw away is never copied.
    batch.rowNumbers.push(row.number);
    batch.leads.push(leadOfRow(row.cells, mapping));
    if (batch.leads.length === task.batchRows) await send();
  }
  if (batch.leads.length > 0) await send();
}

async function main(): Promise<void> {
  const rows = readSheetFile(task.path, task.format, task.limits, task.tmpDir);
  try {
    if (task.mode === 'scan') {
      const result = await scan(rows);
      if (result === null) refuse('file has no rows', 'file');
      port.postMessage({ type: 'scan', scan: result } satisfies SheetParseMessage);
    } else {
      await sendLeads(rows, task.mapping ?? {});
      port.postMessage({ type: 'end' } satisfies SheetParseMessage);
    }
    process.exit(0);
  } catch (error) {
    if (error instanceof DomainError) refuse(error.message, error.field ?? null);
    refuse(`file could not be read: ${String((error as Error).message).slice(0, 300)}`, 'file');
  }
}

void main();
