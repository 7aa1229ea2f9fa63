import { Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import pLimit from 'p-limit';
import { InvalidInputError } from '../../common/domain-error';
import type { LeadBatch, SheetParseMessage, SheetParseTask, SheetScan } from './sheet-parse.worker';
import type { ColumnMapping, SpreadsheetFormat } from '..';
import {
  MAX_CONCURRENT_PARSES,
  SHEET_LIMITS,
  type ParseBudget,
  type SheetLimits,
  type XlsxArchiveLimits,
} from './spreadsheet-limits';
import { SpreadsheetTempFiles } from './spreadsheet-temp-files.service';

export type { LeadBatch, SheetScan } from './sheet-parse.worker';

/** The first data rows kept with an upload, shown in the preview. */
export const SAMPLE_ROWS = 10;
/** Rows a parse thread sends at once while a file is imported. */
const ROW_BATCH = 1_000;

/**
 * The compiled thread file: beside this file in dist/; when this file runs as TypeScript (the
 * tests), the one the build put in dist/ (the e2e setup builds it).
 */
function workerFile(): string {
  const file = __filename.endsWith('.ts')
    ? resolve(__dirname, '../../../dist/leads/spreadsheet/sheet-parse.worker.js')
    : join(__dirname, 'sheet-parse.worker.js');
  if (!existsSync(file)) throw new Error(`the spreadsheet parse thread ${file} is not built`);
  return file;
}

/** Options of one read. */
export interface ReadOptions {
  budget: ParseBudget;
  /** The bounds of the file's rows and archive; {@link SHEET_LIMITS} unless a test narrows them. */
  limits?: SheetLimits & XlsxArchiveLimits;
}

/** A thread reading one file, as its parent sees it. */
class ParseThread {
  private readonly worker: Worker;
  private readonly messages: SheetParseMessage[] = [];
  private waiting: (() => void) | null = null;
  private ended: InvalidInputError | Error | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(task: SheetParseTask, budget: ParseBudget) {
    this.worker = new Worker(workerFile(), {
      workerData: task,
      resourceLimits: {
        maxOldGenerationSizeMb: budget.heapMb,
        maxYoungGenerationSizeMb: 8,
        stackSizeMb: 4,
      },
      stdout: false,
      stderr: false,
    });
    this.worker.on('message', (message: SheetParseMessage) => {
      if (message.type === 'error') {
        this.ended ??= new InvalidInputError(message.message, message.field ?? undefined);
      } else {
        this.messages.push(message);
      }
      this.wake();
    });
    this.worker.on('error', (error: Error & { code?: string }) => {
      this.ended ??=
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? InvalidInputError.field(
              'file',
              `needs more than ${budget.heapMb} MiB of memory to read: save it as CSV, or split it`,
            )
          : InvalidInputError.field('file', 'could not be read');
      this.wake();
    });
    this.worker.on('exit', () => {
      this.ended ??= InvalidInputError.field('file', 'could not be read');
      this.wake();
    });
    this.timer = setTimeout(() => {
      this.ended ??= InvalidInputError.field(
        'file',
        `took more than ${Math.round(budget.wallMs / 1000)} s to read`,
      );
      void this.worker.terminate();
      this.wake();
    }, budget.wallMs);
    this.timer.unref();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  /** Asks the thread for its next batch of rows. */
  request(): void {
    this.worker.postMessage('next');
  }

  /**
   * The thread's next message.
   * @throws InvalidInputError when it refused the file, ran out of memory or time, or died.
   */
  async next(): Promise<SheetParseMessage> {
    for (;;) {
      const message = this.messages.shift();
      if (message !== undefined) return message;
      if (this.ended !== null) throw this.ended;
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  /** Stops the thread (if still running) and waits for it to be gone. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.ended ??= new Error('stopped');
    await this.worker.terminate();
  }
}

/**
 * Reads spreadsheet files off the event loop (docs/security.md#spreadsheet-uploads): each read
 * is a worker thread with a capped heap, a CPU budget (its own CPU time) and a wall-clock
 * deadline, reading a local file within {@link SHEET_LIMITS}; at most
 * {@link MAX_CONCURRENT_PARSES} threads run in a process, further reads wait. A thread that
 * passes a bound ends alone: the process and every other request go on. The thread's spill
 * directory is removed when the read ends, on every path.
 */
@Injectable()
export class SpreadsheetFileReader {
  private readonly slots = pLimit(MAX_CONCURRENT_PARSES);

  constructor(private readonly tempFiles: SpreadsheetTempFiles) {}

  /** Waits for a free thread slot; the returned function frees it. */
  private acquire(): Promise<() => void> {
    return new Promise((acquired) => {
      void this.slots(() => new Promise<void>((release) => acquired(release)));
    });
  }

  /** Starts a parse thread on a file once a slot is free; `close` ends it and frees the slot. */
  private async open(
    path: string,
    format: SpreadsheetFormat,
    options: ReadOptions,
    work: Pick<SheetParseTask, 'mode' | 'sampleRows' | 'mapping' | 'skipRows'>,
  ): Promise<{ thread: ParseThread; close: () => Promise<void> }> {
    const release = await this.acquire();
    const tmpDir = await this.tempFiles.makeDir('parse');
    const thread = new ParseThread(
      {
        path,
        format,
        limits: options.limits ?? SHEET_LIMITS,
        tmpDir,
        cpuMs: options.budget.cpuMs,
        batchRows: ROW_BATCH,
        ...work,
      },
      options.budget,
    );
    const close = async () => {
      await thread.stop();
      await this.tempFiles.remove(tmpDir);
      release();
    };
    return { thread, close };
  }

  /**
   * Reads a file through: its header row (the first non-blank row), first
   * {@link SAMPLE_ROWS} data rows, count of data rows and suggested column mapping.
   * @throws InvalidInputError (field `file`) when the file cannot be read, passes a bound, or
   *   has no row.
   */
  async scan(path: string, format: SpreadsheetFormat, options: ReadOptions): Promise<SheetScan> {
    const { thread, close } = await this.open(path, format, options, {
      mode: 'scan',
      sampleRows: SAMPLE_ROWS,
      mapping: null,
      skipRows: 0,
    });
    try {
      const message = await thread.next();
      if (message.type !== 'scan') throw new Error(`unexpected ${message.type} from a scan`);
      return message.scan;
    } finally {
      await close();
    }
  }

  /**
   * The data rows of a file as leads under `mapping` (the header row and the first `skipRows`
   * data rows left out), in batches of up to 1,000 with their row numbers, read one batch ahead
   * of the consumer. Only mapped cells leave the parse thread.
   * @throws InvalidInputError (field `file`) when the file cannot be read or passes a bound.
   */
  async *leads(
    path: string,
    format: SpreadsheetFormat,
    mapping: ColumnMapping,
    skipRows: number,
    options: ReadOptions,
  ): AsyncGenerator<LeadBatch> {
    const { thread, close } = await this.open(path, format, options, {
      mode: 'leads',
      sampleRows: 0,
      mapping,
      skipRows,
    });
    try {
      thread.request();
      for (;;) {
        const message = await thread.next();
        if (message.type === 'end') return;
        if (message.type !== 'leads') throw new Error(`unexpected ${message.type} from a read`);
        thread.request();
        yield message.batch;
      }
    } finally {
      await close();
    }
  }
}
