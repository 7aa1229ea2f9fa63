import ExcelJS from 'exceljs';
import { Readable } from 'node:stream';
import {
  detectFormat,
  readSpreadsheet,
  sniffDelimiter,
  xlsxCellText,
  type SheetRow,
} from './spreadsheet-reader';

async function rows(source: Readable, format: 'csv' | 'xlsx'): Promise<SheetRow[]> {
  const all: SheetRow[] = [];
  for await (const row of readSpreadsheet(source, format)) all.push(row);
  return all;
}

/** The text cut into pieces of `size` bytes, as a request streams it. */
const pieces = (text: string, size: number) => {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return Readable.from(out);
};

describe('readSpreadsheet, CSV', () => {
  it('reads rows numbered as a spreadsheet program numbers them, skipping blank rows, whatever the pieces', async () => {
    const csv =
      '\ufeffPhone;Name\r\n+1 415 555 0100; Ada \r\n\r\n;\r\n"+1 415\n555 0101";"Bo ""B"""\r\n+14155550102;Cy;extra\r\n';
    for (const size of [1, 7, 1 << 20]) {
      expect(await rows(pieces(csv, size), 'csv')).toEqual([
        { number: 1, cells: ['Phone', 'Name'] },
        { number: 2, cells: ['+1 415 555 0100', 'Ada'] },
        { number: 5, cells: ['+1 415\n555 0101', 'Bo "B"'] },
        { number: 6, cells: ['+14155550102', 'Cy', 'extra'] },
      ]);
    }
  });

  it('names the problem of an unreadable file in an InvalidInputError on `file`', async () => {
    await expect(rows(pieces('phone\n"+1415 unclosed\n', 4), 'csv')).rejects.toMatchObject({
      field: 'file',
      message: expect.stringMatching(/^file could not be read as CSV: .*quote/i),
    });
  });

  it('yields nothing for an empty file', async () => {
    expect(await rows(Readable.from([]), 'csv')).toEqual([]);
  });

  it('guesses the delimiter from the first line', () => {
    expect(sniffDelimiter('a,b,c\n1;2')).toBe(',');
    expect(sniffDelimiter('a;b;c\n')).toBe(';');
    expect(sniffDelimiter('a\tb')).toBe('\t');
    expect(sniffDelimiter('phone')).toBe(',');
  });
});

describe('readSpreadsheet, XLSX', () => {
  it('reads the first worksheet with sheet row numbers and cells as text', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Leads');
    sheet.getRow(1).values = ['Mobile', 'First Name', 'Score'];
    sheet.getRow(2).values = [14155550100, { richText: [{ text: 'A' }, { text: 'da' }] }, 1.5];
    sheet.getRow(4).values = ['+1 415 555 0101', { formula: 'UPPER("bo")', result: 'BO' }];
    workbook.addWorksheet('Other').getRow(1).values = ['ignored'];
    const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(detectFormat('leads.xlsx', buffer.subarray(0, 16))).toBe('xlsx');
    const parts: Buffer[] = [];
    for (let i = 0; i < buffer.length; i += 1000) parts.push(buffer.subarray(i, i + 1000));
    expect(await rows(Readable.from(parts), 'xlsx')).toEqual([
      { number: 1, cells: ['Mobile', 'First Name', 'Score'] },
      { number: 2, cells: ['14155550100', 'Ada', '1.5'] },
      { number: 4, cells: ['+1 415 555 0101', 'BO'] },
    ]);
  });

  it('turns exceljs values into text', () => {
    expect(xlsxCellText(4155550100)).toBe('4155550100');
    expect(xlsxCellText(true)).toBe('TRUE');
    expect(xlsxCellText(new Date('2026-01-02T00:00:00Z'))).toBe('2026-01-02T00:00:00.000Z');
    expect(xlsxCellText({ text: 'link', hyperlink: 'http://x' })).toBe('link');
    expect(xlsxCellText({ error: '#N/A' })).toBe('#N/A');
    expect(xlsxCellText(undefined)).toBe('');
  });
});

describe('detectFormat', () => {
  it('reads text as CSV and refuses binaries it cannot read', () => {
    expect(detectFormat('leads.csv', Buffer.from('phone\n'))).toBe('csv');
    expect(() => detectFormat('a.zip', Buffer.from('PK\x03\x04rest', 'latin1'))).toThrow(/ZIP/);
    expect(() => detectFormat('a.xls', Buffer.from('d0cf11e0a1b11ae1', 'hex'))).toThrow(/\.xls/);
    expect(() => detectFormat('a.bin', Buffer.from([1, 0, 2]))).toThrow(/not a CSV/);
  });
});
