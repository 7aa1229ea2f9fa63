// Interim reader (exceljs), replaced by the bounded reader being written on its own branch.
import ExcelJS from 'exceljs';
import { createReadStream } from 'node:fs';
import type { SheetLimits, XlsxArchiveLimits } from './spreadsheet-limits';

export type XlsxLimits = Omit<SheetLimits & XlsxArchiveLimits, 'maxRecordChars'>;
export interface XlsxRow {
  number: number;
  cells: string[];
}
export class XlsxError extends Error {}

function text(value: unknown): string {
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
    if ('result' in cell) return text(cell.result);
    if ('text' in cell) return text(cell.text);
    if ('error' in cell) return String(cell.error);
  }
  return '';
}

export async function* readXlsxRows(
  path: string,
  limits: XlsxLimits,
  _tmpDir: string,
): AsyncGenerator<XlsxRow> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(createReadStream(path), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  });
  try {
    for await (const sheet of workbook) {
      for await (const row of sheet) {
        if (row.number > limits.maxRows) throw new XlsxError('has too many rows');
        const values = row.values as unknown[];
        const width = Math.min(limits.maxColumns, Math.max(0, values.length - 1));
        const cells = new Array<string>(width);
        for (let c = 0; c < width; c++) cells[c] = text(values[c + 1]);
        yield { number: row.number, cells };
      }
      break;
    }
  } catch (error) {
    if (error instanceof XlsxError) throw error;
    throw new XlsxError(`could not be read as XLSX: ${(error as Error).message.slice(0, 300)}`);
  }
}
