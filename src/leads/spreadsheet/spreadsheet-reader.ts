import { parse, type InfoRecord, type Options as CsvOptions } from 'csv-parse';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { InvalidInputError } from '../../common/domain-error';
import type { SpreadsheetFormat } from '..';
import type { SheetLimits, XlsxArchiveLimits } from './spreadsheet-limits';
import { readXlsxRows, XlsxError } from './xlsx-sheet-reader';

/** One non-blank row of a spreadsheet: its number in the file (the first row is 1) and its cells as text. */
export interface SheetRow {
  number: number;
  cells: string[];
}

/** How much of a CSV's start is read to find its delimiter. */
const SNIFF_BYTES = 64 * 1024;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** What the refusal of a file that is no spreadsheet asks for. */
export const ACCEPTED_FORMATS = 'upload a CSV (.csv, .tsv) or Excel workbook (.xlsx)';

/** The extensions of the text files read as CSV. */
const CSV_NAME = /\.(csv|tsv)$/i;
/** The extensions of an Excel workbook (an XLSX, or the same with macros). */
const XLSX_NAME = /\.xls[xm]$/i;

/**
 * The format of an uploaded file, from its name's extension and its first bytes
 * (docs/dashboard.md#spreadsheet-imports): an XLSX workbook is a ZIP archive named `.xlsx` or
 * `.xlsm`; a CSV is text named `.csv` or `.tsv`. A name without an extension is judged by the
 * bytes alone (a ZIP is read as XLSX, text as CSV).
 * @throws InvalidInputError (field `file`) for any other extension (a `.txt`, a `.pdf`), a ZIP
 *   or a binary file (a NUL in its first bytes) that is no workbook, a text file named as a
 *   workbook, or an Excel 97–2003 workbook.
 */
export function detectFormat(fileName: string, head: Buffer): SpreadsheetFormat {
  const extension = /\.([a-z0-9]{1,16})$/i.exec(fileName)?.[1]?.toLowerCase() ?? null;
  if (head.subarray(0, 8).equals(Buffer.from('d0cf11e0a1b11ae1', 'hex'))) {
    throw InvalidInputError.field(
      'file',
      'is an Excel 97–2003 (.xls) workbook: save it as .xlsx or .csv and upload that',
    );
  }
  if (head.subarray(0, 4).equals(ZIP_MAGIC)) {
    if (extension === null || XLSX_NAME.test(fileName)) return 'xlsx';
    throw InvalidInputError.field(
      'file',
      `is a ZIP archive, not a spreadsheet: ${ACCEPTED_FORMATS}`,
    );
  }
  if (head.includes(0)) {
    throw InvalidInputError.field('file', `is not a CSV or XLSX file: ${ACCEPTED_FORMATS}`);
  }
  if (extension !== null && XLSX_NAME.test(fileName)) {
    throw InvalidInputError.field(
      'file',
      `is named .${extension} but is not an Excel workbook: ${ACCEPTED_FORMATS}`,
    );
  }
  if (extension !== null && !CSV_NAME.test(fileName)) {
    throw InvalidInputError.field(
      'file',
      `is a .${extension} file, not a spreadsheet: ${ACCEPTED_FORMATS}`,
    );
  }
  return 'csv';
}

/**
 * The CSV delimiter of a file, from its first line: the most frequent of `,`, `;` and tab
 * (spreadsheet programs in many locales export `;`); `,` when none appears.
 */
export function sniffDelimiter(head: string): string {
  const line = head.split(/\r?\n/, 1)[0] ?? '';
  let best = ',';
  let bestCount = 0;
  for (const candidate of [',', ';', '\t']) {
    const count = line.split(candidate).length - 1;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}

/** A cell as text: trimmed, cut to `maxChars`, NUL and lone surrogates replaced. */
function cellText(value: string, maxChars: number): string {
  const trimmed = value.trim();
  return (trimmed.length > maxChars ? trimmed.slice(0, maxChars) : trimmed)
    .toWellFormed()
    .replace(/\0/g, '\uFFFD');
}

/** Whether every cell of a row is empty. */
const blank = (cells: string[]) => cells.every((cell) => cell === '');

/** Reads the first `bytes` bytes of a file (fewer when it is shorter). */
export async function readFileHead(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

const tooManyRows = (limits: SheetLimits) =>
  InvalidInputError.field(
    'file',
    `has more than ${limits.maxRows.toLocaleString('en-US')} rows (blank ones included): split it`,
  );

async function* csvRows(path: string, limits: SheetLimits): AsyncGenerator<SheetRow> {
  // The first line (or 64 KiB) tells the delimiter.
  const head = await readFileHead(path, SNIFF_BYTES);
  if (head.length === 0) return;
  // Numbered by record, as a spreadsheet program numbers the rows (a quoted line break does
  // not start a row; a blank line is a row).
  const numbered = (record: string[], context: InfoRecord): SheetRow => {
    const number = context.records + context.empty_lines;
    if (number > limits.maxRows) throw tooManyRows(limits);
    const cells = record.slice(0, limits.maxColumns);
    for (let c = 0; c < cells.length; c++) cells[c] = cellText(cells[c], limits.maxCellChars);
    return { number, cells };
  };
  const parser = parse({
    bom: true,
    relax_column_count: true,
    // Blank lines cost nothing this way; their count numbers the rows that follow.
    skip_empty_lines: true,
    max_record_size: limits.maxRecordChars,
    delimiter: sniffDelimiter(head.toString('utf8')),
    on_record: numbered as unknown as CsvOptions['on_record'],
  });
  const file = createReadStream(path, { highWaterMark: 64 * 1024 });
  // Piped with backpressure: the parser holds at most its buffer, never the file.
  file.on('error', (error) => parser.destroy(error));
  file.pipe(parser);
  try {
    for await (const row of parser as AsyncIterable<SheetRow>) {
      if (!blank(row.cells)) yield row;
    }
    if (parser.info.records + parser.info.empty_lines > limits.maxRows) throw tooManyRows(limits);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof InvalidInputError) throw cause;
    const message = (error as Error).message;
    throw InvalidInputError.field('file', `could not be read as CSV: ${message.slice(0, 300)}`);
  } finally {
    file.destroy();
    parser.destroy();
  }
}

async function* xlsxRows(
  path: string,
  limits: SheetLimits & XlsxArchiveLimits,
  tmpDir: string,
): AsyncGenerator<SheetRow> {
  try {
    for await (const row of readXlsxRows(path, limits, tmpDir)) {
      const cells = row.cells;
      const width = Math.min(limits.maxColumns, cells.length);
      const kept = new Array<string>(width);
      for (let c = 0; c < width; c++) kept[c] = cellText(cells[c] ?? '', limits.maxCellChars);
      if (!blank(kept)) yield { number: row.number, cells: kept };
    }
  } catch (error) {
    if (error instanceof XlsxError) throw InvalidInputError.field('file', error.message);
    throw error;
  }
}

/**
 * The non-blank rows of a spreadsheet file, streamed within `limits`
 * (docs/dashboard.md#spreadsheet-imports, docs/security.md#spreadsheet-uploads): a CSV (UTF-8,
 * a BOM skipped, `,` `;` or tab as found in its first line, RFC 4180 quoting) or the first
 * worksheet of an XLSX workbook. Rows keep their number in the file; cells are trimmed text, at
 * most `limits.maxColumns` of them, each at most `limits.maxCellChars` long. Meant for a
 * parse thread (`sheet-parse.worker.ts`): it reads the file synchronously in places.
 * @param tmpDir a directory the caller owns and removes, for an XLSX's shared-strings table.
 * @throws InvalidInputError (field `file`) when the file cannot be read as its format or
 *   passes a bound.
 */
export function readSheetFile(
  path: string,
  format: SpreadsheetFormat,
  limits: SheetLimits & XlsxArchiveLimits,
  tmpDir: string,
): AsyncGenerator<SheetRow> {
  return format === 'csv' ? csvRows(path, limits) : xlsxRows(path, limits, tmpDir);
}
