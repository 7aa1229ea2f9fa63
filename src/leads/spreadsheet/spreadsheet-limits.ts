/**
 * The bounds on a spreadsheet upload and on reading its file (docs/security.md#spreadsheet-uploads).
 * A file is hostile until read: every bound here is enforced before or while reading, never
 * after, so no file can make the service hold more memory, disk or CPU than these allow.
 */

import type { XlsxLimits } from './xlsx-sheet-reader';

const MiB = 1024 * 1024;

/** The largest file a spreadsheet import takes, in bytes (100 MiB): more is `413`. */
export const SPREADSHEET_MAX_BYTES = 100 * MiB;

/** Bounds on the rows and cells of any spreadsheet, CSV or XLSX. */
export interface SheetLimits {
  /** Most rows, blank ones and the header included: a spreadsheet program's sheet holds 1,048,576. */
  maxRows: number;
  /** Most columns a row may have; cells beyond it are ignored. */
  maxColumns: number;
  /** The longest cell kept, in UTF-16 code units: a lead field is at most 255, so more only costs memory. */
  maxCellChars: number;
  /** The longest CSV record, in characters: a longer one makes the file unreadable. */
  maxRecordChars: number;
}

/** Bounds on an XLSX workbook's ZIP archive and XML, beyond {@link SheetLimits} (each explained on `XlsxLimits`). */
export type XlsxArchiveLimits = Omit<XlsxLimits, 'maxRows' | 'maxColumns' | 'maxCellChars'>;

/** The bounds every spreadsheet is read within (docs/security.md#spreadsheet-uploads). */
export const SHEET_LIMITS: SheetLimits & XlsxArchiveLimits = {
  maxRows: 1_048_576,
  maxColumns: 200,
  maxCellChars: 1_000,
  maxRecordChars: 256 * 1024,
  maxEntryBytes: 1024 * MiB,
  maxTotalBytes: 1536 * MiB,
  maxCompressionRatio: 200,
  maxSharedStrings: 4_194_304,
  maxSharedStringBytes: 128 * MiB,
  maxXmlDepth: 64,
};

/** What a thread reading a file may use (docs/security.md#spreadsheet-uploads). */
export interface ParseBudget {
  /** The thread's heap: its old generation, in MiB (more is the thread's end, not the process's). */
  heapMb: number;
  /** The thread's own CPU time, in ms, after which reading stops. */
  cpuMs: number;
  /** Wall-clock time, in ms, after which the thread is stopped whatever it is doing. */
  wallMs: number;
}

/** Reading an upload through (header, sample, row count): it must fit a request. */
export const UPLOAD_PARSE_BUDGET: ParseBudget = { heapMb: 32, cpuMs: 30_000, wallMs: 45_000 };

/**
 * Reading a file to import it: the rows go out in chunks, so the wall clock includes the
 * import's own writes; the CPU budget counts only the reading.
 */
export const IMPORT_PARSE_BUDGET: ParseBudget = { heapMb: 32, cpuMs: 120_000, wallMs: 3_600_000 };

/** Files read at once by one process, whatever their kind: each is a thread. */
export const MAX_CONCURRENT_PARSES = 2;

/** How many uploads one process receives at once, and how many of them one account may have. */
export const UPLOAD_CONCURRENCY = { perProcess: 4, perAccount: 2 };

/**
 * Bytes of uploads one process holds on disk at once: each upload reserves its declared
 * `Content-Length`, or {@link SPREADSHEET_MAX_BYTES} when it declares none.
 */
export const UPLOAD_PROCESS_BYTES = 256 * MiB;

/** What a refused upload's `Retry-After` asks for, in seconds. */
export const UPLOAD_RETRY_AFTER_SECONDS = 10;
