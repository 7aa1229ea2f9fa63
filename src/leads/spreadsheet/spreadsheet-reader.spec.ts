import ExcelJS from 'exceljs';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHEET_LIMITS, type SheetLimits } from './spreadsheet-limits';
import { detectFormat, readSheetFile, sniffDelimiter, type SheetRow } from './spreadsheet-reader';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spreadsheet-reader-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function rows(
  content: string | Buffer,
  format: 'csv' | 'xlsx',
  limits: Partial<SheetLimits> = {},
): Promise<SheetRow[]> {
  const path = join(dir, `file.${format}`);
  writeFileSync(path, content);
  const spill = mkdtempSync(join(dir, 'spill-'));
  const all: SheetRow[] = [];
  for await (const row of readSheetFile(path, format, { ...SHEET_LIMITS, ...limits }, spill)) {
    all.push(row);
  }
  return all;
}

describe('readSheetFile, CSV', () => {
  it('reads rows numbered as a spreadsheet program numbers them, skipping blank rows', async () => {
    const csv =
      '\ufeffPhone;Name\r\n+1 415 555 0100; Ada \r\n\r\n;\r\n"+1 415\n555 0101";"Bo ""B"""\r\n+14155550102;Cy;extra\r\n';
    expect(await rows(csv, 'csv')).toEqual([
      { number: 1, cells: ['Phone', 'Name'] },
      { number: 2, cells: ['+1 415 555 0100', 'Ada'] },
      { number: 5, cells: ['+1 415\n555 0101', 'Bo "B"'] },
      { number: 6, cells: ['+14155550102', 'Cy', 'extra'] },
    ]);
  });

  it('numbers the row after a run of blank lines by its line', async () => {
    const csv = `phone,name\n${'\n'.repeat(200_000)}+14155550100,Ada\n`;
    expect(await rows(csv, 'csv')).toEqual([
      { number: 1, cells: ['phone', 'name'] },
      { number: 200_002, cells: ['+14155550100', 'Ada'] },
    ]);
  });

  it('refuses a file with more rows than the bound, blank ones counted', async () => {
    const limits = { maxRows: 100 };
    await expect(
      rows(`phone\n${'\n'.repeat(100)}+14155550100\n`, 'csv', limits),
    ).rejects.toMatchObject({
      field: 'file',
      message: 'file has more than 100 rows (blank ones included): split it',
    });
    await expect(rows(`phone\n${'\n'.repeat(200)}`, 'csv', limits)).rejects.toMatchObject({
      message: 'file has more than 100 rows (blank ones included): split it',
    });
    await expect(rows(`phone\n${' \n'.repeat(200)}`, 'csv', limits)).rejects.toMatchObject({
      message: 'file has more than 100 rows (blank ones included): split it',
    });
    expect(await rows(`phone\n${'\n'.repeat(97)}+14155550100\n`, 'csv', limits)).toHaveLength(2);
  });

  it('keeps at most the bounded number of columns and characters of a cell', async () => {
    const wide = Array.from({ length: 300 }, (_, i) => `c${i}`).join(',');
    const [header, row] = await rows(`${wide}\n${'x'.repeat(5_000)}\n`, 'csv');
    expect(header.cells).toHaveLength(SHEET_LIMITS.maxColumns);
    expect(row.cells[0]).toHaveLength(SHEET_LIMITS.maxCellChars);
  });

  it('names the problem of an unreadable file in an InvalidInputError on `file`', async () => {
    await expect(rows('phone\n"+1415 unclosed\n', 'csv')).rejects.toMatchObject({
      field: 'file',
      message: expect.stringMatching(/^file could not be read as CSV: .*quote/i),
    });
    await expect(rows(`phone\n"${'x'.repeat(300_000)}"\n`, 'csv')).rejects.toMatchObject({
      field: 'file',
      message: expect.stringMatching(/^file could not be read as CSV: .*record/i),
    });
  });

  it('yields nothing for an empty file', async () => {
    expect(await rows('', 'csv')).toEqual([]);
  });

  it('guesses the delimiter from the first line', () => {
    expect(sniffDelimiter('a,b,c\n1;2')).toBe(',');
    expect(sniffDelimiter('a;b;c\n')).toBe(';');
    expect(sniffDelimiter('a\tb')).toBe('\t');
    expect(sniffDelimiter('phone')).toBe(',');
  });
});

describe('readSheetFile, XLSX', () => {
  it('reads the first worksheet with sheet row numbers and cells as text, leaving no spilled file', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Leads');
    sheet.getRow(1).values = ['Mobile', 'First Name', 'Score'];
    sheet.getRow(2).values = [14155550100, { richText: [{ text: 'A' }, { text: 'da' }] }, 1.5];
    sheet.getRow(4).values = ['+1 415 555 0101', { formula: 'UPPER("bo")', result: 'BO' }];
    workbook.addWorksheet('Other').getRow(1).values = ['ignored'];
    const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(detectFormat('leads.xlsx', buffer.subarray(0, 16))).toBe('xlsx');
    expect(await rows(buffer, 'xlsx')).toEqual([
      { number: 1, cells: ['Mobile', 'First Name', 'Score'] },
      { number: 2, cells: ['14155550100', 'Ada', '1.5'] },
      { number: 4, cells: ['+1 415 555 0101', 'BO'] },
    ]);
    for (const spill of readdirSync(dir).filter((name) => name.startsWith('spill-'))) {
      expect(readdirSync(join(dir, spill))).toEqual([]);
    }
  });
});

describe('detectFormat', () => {
  it('reads text as CSV and refuses binaries it cannot read', () => {
    expect(detectFormat('leads.csv', Buffer.from('phone\n'))).toBe('csv');
    expect(() => detectFormat('a.zip', Buffer.from('PK\x03\x04rest', 'latin1'))).toThrow(/ZIP/);
    expect(() => detectFormat('a.xls', Buffer.from('d0cf11e0a1b11ae1', 'hex'))).toThrow(/\.xls/);
    expect(() => detectFormat('a.bin', Buffer.from([1, 0, 2]))).toThrow(/not a CSV/);
  });

  it('reads text as CSV only under a CSV name (or none), and refuses any other extension naming the accepted formats', () => {
    expect(detectFormat('leads.TSV', Buffer.from('phone\temail\n'))).toBe('csv');
    expect(detectFormat('spreadsheet', Buffer.from('phone\n'))).toBe('csv');
    expect(detectFormat('book', Buffer.from('PK\x03\x04rest', 'latin1'))).toBe('xlsx');
    for (const [name, problem] of [
      ['notes.txt', 'file is a .txt file, not a spreadsheet'],
      ['report.pdf', 'file is a .pdf file, not a spreadsheet'],
      ['leads.xlsx', 'file is named .xlsx but is not an Excel workbook'],
    ]) {
      expect(() => detectFormat(name, Buffer.from('hello world\n'))).toThrow(
        `${problem}: upload a CSV (.csv, .tsv) or Excel workbook (.xlsx)`,
      );
    }
  });
});
