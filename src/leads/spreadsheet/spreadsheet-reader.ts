import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { InvalidInputError } from '../../common/domain-error';
import type { SpreadsheetFormat } from './spreadsheet-import.entity';

/** One non-blank row of a spreadsheet: its number in the file (the first row is 1) and its cells as text. */
export interface SheetRow {
  number: number;
  cells: string[];
}

/** The most columns a row may have; cells beyond it are ignored. */
export const MAX_COLUMNS = 200;
/** The longest CSV record, in characters: a longer one makes the file unreadable. */
export const MAX_RECORD_CHARS = 256 * 1024;
/** The longest cell kept, in characters: a lead field is at most 255, so more only costs memory. */
export const MAX_CELL_CHARS = 1_000;

/** How much of a CSV's start is read to find its delimiter. */
const SNIFF_BYTES = 64 * 1024;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * The format of an uploaded file, from its first bytes: an XLSX workbook is a ZIP archive; any
 * other file is read as CSV (UTF-8 text).
 * @throws InvalidInputError (field `file`) for a ZIP that is no workbook's extension, or a
 *   binary file (a NUL in its first bytes).
 */
export function detectFormat(fileName: string, head: Buffer): SpreadsheetFormat {
  if (head.subarray(0, 4).equals(ZIP_MAGIC)) {
    if (/\.xls[xm]$/i.test(fileName) || !/\.[a-z0-9]+$/i.test(fileName)) return 'xlsx';
    throw InvalidInputError.field('file', 'is a ZIP archive: upload a .csv or .xlsx file');
  }
  if (head.subarray(0, 8).equals(Buffer.from('d0cf11e0a1b11ae1', 'hex'))) {
    throw InvalidInputError.field(
      'file',
      'is an Excel 97–2003 (.xls) workbook: save it as .xlsx or .csv and upload that',
    );
  }
  if (head.includes(0)) throw InvalidInputError.field('file', 'is not a CSV or XLSX file');
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

/** A cell as text: trimmed, cut to {@link MAX_CELL_CHARS}, NUL and lone surrogates replaced. */
function cellText(value: string): string {
  const trimmed = value.trim();
  return (trimmed.length > MAX_CELL_CHARS ? trimmed.slice(0, MAX_CELL_CHARS) : trimmed)
    .toWellFormed()
    .replace(/\0/g, '\uFFFD');
}

/** Whether every cell of a row is empty. */
const blank = (cells: string[]) => cells.every((cell) => cell === '');

/**
 * An XLSX cell value (exceljs) as text: rich text joined, a formula's cached result, a
 * hyperlink's text, a date as ISO 8601, an error as its code; a whole number written without
 * an exponent (a phone typed as a number stays its digits).
 */
export function xlsxCellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) < 1e21
      ? value.toLocaleString('en-US', { useGrouping: false })
      : String(value);
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const cell = value as Record<string, unknown>;
    if (Array.isArray(cell.richText)) {
      return (cell.richText as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
    }
    if ('result' in cell) return xlsxCellText(cell.result);
    if ('text' in cell) return xlsxCellText(cell.text);
    if ('error' in cell) return String(cell.error);
  }
  return '';
}

async function* csvRows(source: AsyncIterable<Buffer>): AsyncGenerator<SheetRow> {
  const chunks = source[Symbol.asyncIterator]();
  // The first line (or 64 KiB) tells the delimiter.
  const headParts: Buffer[] = [];
  let headBytes = 0;
  let next = await chunks.next();
  while (!next.done) {
    headParts.push(next.value);
    headBytes += next.value.length;
    if (headBytes >= SNIFF_BYTES || next.value.includes(0x0a)) break;
    next = await chunks.next();
  }
  if (headBytes === 0) return;
  const head = Buffer.concat(headParts);
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_CHARS,
    delimiter: sniffDelimiter(head.subarray(0, SNIFF_BYTES).toString('utf8')),
  });
  // Fed with backpressure: the parser holds at most its buffer, never the file.
  const feed = (async () => {
    try {
      let chunk: IteratorResult<Buffer> = { done: false, value: head };
      while (!chunk.done) {
        if (!parser.write(chunk.value)) await once(parser, 'drain');
        chunk = await chunks.next();
      }
      parser.end();
    } catch (error) {
      parser.destroy(error as Error);
    }
  })();
  try {
    // Numbered by record, as a spreadsheet program numbers the rows (a quoted line break does
    // not start a row; a blank line is a row).
    let number = 0;
    for await (const record of parser as AsyncIterable<string[]>) {
      number += 1;
      const cells = record.slice(0, MAX_COLUMNS).map(cellText);
      if (!blank(cells)) yield { number, cells };
    }
  } catch (error) {
    const message = (error as Error).message;
    throw InvalidInputError.field('file', `could not be read as CSV: ${message.slice(0, 300)}`);
  } finally {
    parser.destroy();
    await feed;
    await chunks.return?.();
  }
}

async function* xlsxRows(source: Readable): AsyncGenerator<SheetRow> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(source, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  });
  try {
    for await (const sheet of workbook) {
      for await (const row of sheet) {
        const values = row.values as unknown[];
        const width = Math.min(MAX_COLUMNS, Math.max(0, values.length - 1));
        const cells = new Array<string>(width);
        // exceljs numbers columns from 1: values[0] is always empty.
        for (let c = 0; c < width; c++) cells[c] = cellText(xlsxCellText(values[c + 1]));
        if (!blank(cells)) yield { number: row.number, cells };
      }
      // Only the first worksheet is read.
      break;
    }
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const message = (error as Error).message;
    throw InvalidInputError.field('file', `could not be read as XLSX: ${message.slice(0, 300)}`);
  }
}

/**
 * The non-blank rows of a spreadsheet, streamed (docs/dashboard.md#spreadsheet-imports): a CSV
 * (UTF-8, a BOM skipped, `,` `;` or tab as found in its first line, RFC 4180 quoting) or the
 * first worksheet of an XLSX workbook. Rows keep their number in the file; cells are trimmed
 * text, at most {@link MAX_COLUMNS} of them.
 * @throws InvalidInputError (field `file`) when the file cannot be read as its format.
 */
export function readSpreadsheet(
  source: Readable,
  format: SpreadsheetFormat,
): AsyncIterable<SheetRow> {
  return format === 'csv' ? csvRows(source as AsyncIterable<Buffer>) : xlsxRows(source);
}
