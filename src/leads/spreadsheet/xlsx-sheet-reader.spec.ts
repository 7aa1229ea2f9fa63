import ExcelJS from 'exceljs';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32, deflateRawSync } from 'node:zlib';
import { SHEET_LIMITS } from './spreadsheet-limits';
import { MAX_ENTRIES } from './xlsx-archive';
import { XlsxError, readXlsxRows, type XlsxLimits, type XlsxRow } from './xlsx-sheet-reader';

const MiB = 1024 * 1024;
/** For files whose high compression is incidental to what a test is about. */
const LAX = { maxCompressionRatio: 1e6 };
/** The limits the service uses. */
const LIMITS: XlsxLimits = SHEET_LIMITS;

// ---------------------------------------------------------------------------------------------
// Hand-built workbooks: a tiny ZIP writer that can also lie in its central directory.

interface ZipPart {
  name: string;
  data: string | Buffer;
  /** 0 stored, 8 deflated (the default), anything else as written. */
  method?: number;
  /** General-purpose flags (0x1: encrypted). */
  flags?: number;
  /** The uncompressed size declared, if not the real one. */
  size?: number;
  /** The CRC-32 declared, if not the real one. */
  crc?: number;
  /** The bytes stored, if not the data deflated. */
  stored?: Buffer;
}

function zip(parts: ZipPart[]): Buffer {
  const out: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const data = Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data);
    const method = part.method ?? 8;
    const stored = part.stored ?? (method === 8 ? deflateRawSync(data) : data);
    const crc = part.crc ?? crc32(data);
    const size = part.size ?? data.length;
    const name = Buffer.from(part.name);
    const flags = (part.flags ?? 0) | 0x800;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    out.push(local, name, stored);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    directory.push(central, name);
    offset += 30 + name.length + stored.length;
  }
  const centralDirectory = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(centralDirectory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, centralDirectory, end]);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

const workbookXml = (...ids: string[]) =>
  `${XML}<workbook xmlns="${MAIN}" xmlns:r="${RELS}"><sheets>` +
  ids.map((id, i) => `<sheet name="S${i}" sheetId="${i + 1}" r:id="${id}"/>`).join('') +
  `</sheets><calcPr calcId="1"/></workbook>`;

const relsXml = (relationships: Array<[id: string, type: string, target: string]>) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  relationships
    .map(
      ([id, type, target]) =>
        `<Relationship Id="${id}" Type="${RELS}/${type}" Target="${target}"/>`,
    )
    .join('') +
  `</Relationships>`;

const sheetXml = (rows: string) =>
  `${XML}<worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`;

const sstXml = (strings: string[]) =>
  `${XML}<sst xmlns="${MAIN}" count="${strings.length}" uniqueCount="${strings.length}">` +
  strings.map((s) => (s.startsWith('<') ? `<si>${s}</si>` : `<si><t>${s}</t></si>`)).join('') +
  `</sst>`;

/** A workbook of one sheet: its rows' XML, and shared strings (given as <t> text or <si> content). */
function workbook(
  rows: string,
  strings?: string[],
  options: { sharedStringsFirst?: boolean; sheet?: Partial<ZipPart>; sst?: Partial<ZipPart> } = {},
): Buffer {
  const sheet: ZipPart = {
    name: 'xl/worksheets/sheet1.xml',
    data: sheetXml(rows),
    ...options.sheet,
  };
  const sst: ZipPart[] = strings
    ? [{ name: 'xl/sharedStrings.xml', data: sstXml(strings), ...options.sst }]
    : [];
  return zip([
    { name: 'xl/workbook.xml', data: workbookXml('rId1') },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: relsXml([
        ['rId1', 'worksheet', 'worksheets/sheet1.xml'],
        ['rId2', 'sharedStrings', 'sharedStrings.xml'],
      ]),
    },
    ...(options.sharedStringsFirst ? [...sst, sheet] : [sheet, ...sst]),
  ]);
}

// ---------------------------------------------------------------------------------------------

let work: string;
let tmp: string;
let fileCount = 0;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'xlsx-reader-spec-'));
  tmp = join(work, 'tmp');
  mkdirSync(tmp);
});

afterEach(() => {
  // Whatever the test did, the reader left nothing: no file in tmpDir, no descriptor open.
  expect(readdirSync(tmp)).toEqual([]);
  expect(openFilesUnder(work)).toEqual([]);
  rmSync(work, { recursive: true, force: true });
});

/** The files under `dir` this process has open (Linux; none elsewhere). */
function openFilesUnder(dir: string): string[] {
  if (!existsSync('/proc/self/fd')) return [];
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) open.push(target);
    } catch {
      // Closed meanwhile (the descriptor of the listing itself).
    }
  }
  return open;
}

function file(bytes: Buffer): string {
  const path = join(work, `book-${++fileCount}.xlsx`);
  writeFileSync(path, bytes);
  return path;
}

async function read(path: string, limits: Partial<XlsxLimits> = {}): Promise<XlsxRow[]> {
  const rows: XlsxRow[] = [];
  for await (const row of readXlsxRows(path, { ...LIMITS, ...limits }, tmp)) rows.push(row);
  return rows;
}

/** The XlsxError reading the file throws. */
async function refusal(path: string, limits: Partial<XlsxLimits> = {}): Promise<XlsxError> {
  const error = await read(path, limits).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(XlsxError);
  return error as XlsxError;
}

const row = (r: number | undefined, cells: string) =>
  `<row${r === undefined ? '' : ` r="${r}"`}>${cells}</row>`;

describe('readXlsxRows, reading', () => {
  it('reads what exceljs writes: strings, numbers, booleans, rich text, formulas, errors, sparse cells, blank rows', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Leads');
    sheet.getRow(1).values = ['Mobile', 'First Name', 'Score', 'Opt-in', 'Check'];
    sheet.getRow(2).values = [
      14155550100,
      { richText: [{ text: 'A', font: { bold: true } }, { text: 'da' }] },
      1.5,
      true,
      { error: '#N/A' },
    ];
    sheet.getRow(3).values = [];
    sheet.getRow(4).values = [
      '+1 415 555 0101',
      { formula: 'UPPER("bo")', result: 'BO' },
      -2e-7,
      false,
    ];
    sheet.getCell('G5').value = 'far';
    sheet.getCell('B6').value = ' spaced ';
    sheet.getCell('A6').value = 1e21;
    book.addWorksheet('Other').getRow(1).values = ['ignored'];
    const path = join(work, 'exceljs.xlsx');
    await book.xlsx.writeFile(path);

    expect(await read(path)).toEqual([
      { number: 1, cells: ['Mobile', 'First Name', 'Score', 'Opt-in', 'Check'] },
      { number: 2, cells: ['14155550100', 'Ada', '1.5', 'TRUE', '#N/A'] },
      { number: 4, cells: ['+1 415 555 0101', 'BO', '-2e-7', 'FALSE'] },
      { number: 5, cells: ['', '', '', '', '', '', 'far'] },
      { number: 6, cells: ['1e+21', ' spaced '] },
    ]);
  });

  it('gives the rows the exceljs-based reader gives, the shared-strings table after the sheet (streaming writer)', async () => {
    const path = join(work, 'streamed.xlsx');
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({
      filename: path,
      useSharedStrings: true,
    });
    const sheet = writer.addWorksheet('Leads');
    sheet.addRow(['Mobile', 'Name', 'Notes']).commit();
    for (let i = 0; i < 3_000; i++) {
      // Every 100th row left out: a blank row, its number skipped.
      if (i % 100 === 3) continue;
      const cells = [
        `(212) 555-${String(i).padStart(4, '0')}`,
        `Ada${i % 37}`,
        i % 5 ? `note ${i}` : '',
      ];
      const r = sheet.getRow(i + 2);
      r.values = cells;
      r.commit();
    }
    sheet.commit();
    await writer.commit();

    const ours = await read(path);
    const theirs = [];
    // exceljs's own streaming reader as the oracle: the cells here are all text.
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([readFileSync(path)]), {
      worksheets: 'emit',
      sharedStrings: 'cache',
      hyperlinks: 'ignore',
      styles: 'ignore',
      entries: 'ignore',
    });
    const exceljsRows: Array<{ number: number; cells: string[] }> = [];
    for await (const worksheet of reader) {
      for await (const row of worksheet) {
        const values = (row.values as unknown[]).slice(1).map((v) => (v == null ? '' : String(v)));
        exceljsRows.push({ number: row.number, cells: values });
      }
      break;
    }
    for (const r of exceljsRows) {
      // exceljs keeps a row's trailing empty cells; this reader drops them.
      const cells = [...r.cells];
      while (cells.at(-1) === '') cells.pop();
      theirs.push({ number: r.number, cells });
    }
    expect(ours.length).toBeGreaterThan(2_900);
    expect(ours).toEqual(theirs);
  });

  it('reads the shared-strings table first whatever its place, and sparse cells, rows and cells without r', async () => {
    const strings = ['Phone', 'Name', '+1 415 555 0100', 'Ada'];
    const rows =
      row(1, '<c t="s"><v>0</v></c><c t="s"><v>1</v></c>') +
      row(
        undefined,
        '<c r="A2" t="s"><v>2</v></c><c r="C2" t="s"><v>3</v></c><c t="n"><v>7</v></c>',
      ) +
      row(5, '<c r="B5"/><c r="C5" t="s"><v></v></c>') + // blank: counted, not yielded
      row(undefined, '<c r="AA6" t="inlineStr"><is><t>wide</t></is></c>');
    const expected = [
      { number: 1, cells: ['Phone', 'Name'] },
      { number: 2, cells: ['+1 415 555 0100', '', 'Ada', '7'] },
      { number: 6, cells: [...Array<string>(26).fill(''), 'wide'] },
    ];
    for (const sharedStringsFirst of [false, true]) {
      expect(await read(file(workbook(rows, strings, { sharedStringsFirst })))).toEqual(expected);
    }
  });

  it('turns each cell type into text', async () => {
    const strings = [
      '<r><rPr><b/></rPr><t>Ri</t></r><r><t xml:space="preserve">ch </t></r><rPh sb="0" eb="1"><t>ふり</t></rPh><phoneticPr fontId="1"/>',
    ];
    const cells = [
      '<c r="A1" t="s"><v>0</v></c>',
      '<c r="B1" t="inlineStr"><is><r><t>in</t></r><r><t>line</t></r><rPh><t>x</t></rPh></is></c>',
      '<c r="C1" t="str"><f>CONCAT("a","b")</f><v>ab</v></c>',
      '<c r="D1" t="b"><v>1</v></c>',
      '<c r="E1" t="b"><v>0</v></c>',
      '<c r="F1" t="e"><v>#DIV/0!</v></c>',
      '<c r="G1" t="d"><v>2026-01-02T03:04:05Z</v></c>',
      '<c r="H1"><v>1.4155550100E10</v></c>',
      '<c r="I1" t="n"><v>0.1</v></c>',
      '<c r="J1"><v>-0</v></c>',
      '<c r="K1"><f>1/0</f></c>', // a formula without a cached value: empty
      '<c r="L1" t="inlineStr"><is><t>a_x000D_b_x005F_x000D_</t></is></c>',
      '<c r="M1" t="str"><v>&lt;&amp;&#x41;&#66;</v></c>',
      '<c r="N1" t="inlineStr"><is><t><![CDATA[<cdata>]]></t></is></c>',
      '<c r="O1"><v>12345678901234567890</v></c>',
    ];
    expect(await read(file(workbook(row(1, cells.join('')), strings)))).toEqual([
      {
        number: 1,
        cells: [
          'Rich ',
          'inline',
          'ab',
          'TRUE',
          'FALSE',
          '#DIV/0!',
          '2026-01-02T03:04:05Z',
          '14155550100',
          '0.1',
          '0',
          '',
          'a\rb_x000D_',
          '<&AB',
          '<cdata>',
          '12345678901234567000',
        ],
      },
    ]);
  });

  it('compares local names: prefixed elements (x:row, x:c) and a prefixed r:id', async () => {
    const x = (body: string) =>
      `${XML}<x:worksheet xmlns:x="${MAIN}"><x:sheetData>${body}</x:sheetData></x:worksheet>`;
    const bytes = zip([
      {
        name: 'xl/workbook.xml',
        data: `${XML}<x:workbook xmlns:x="${MAIN}" xmlns:rel="${RELS}"><x:sheets><x:sheet name="A" sheetId="1" rel:id="rId7"/></x:sheets></x:workbook>`,
      },
      {
        name: 'xl/_rels/workbook.xml.rels',
        data: relsXml([
          ['rId7', 'worksheet', '/xl/worksheets/data.xml'],
          ['rId8', 'sharedStrings', '/xl/strings.xml'],
        ]),
      },
      {
        name: 'xl/strings.xml',
        data: `${XML}<x:sst xmlns:x="${MAIN}"><x:si><x:t>shared</x:t></x:si></x:sst>`,
      },
      {
        name: 'xl/worksheets/data.xml',
        data: x('<x:row r="3"><x:c r="B3" t="s"><x:v>0</x:v></x:c></x:row>'),
      },
      {
        name: 'xl/worksheets/sheet1.xml',
        data: x('<x:row r="1"><x:c t="s"><x:v>9</x:v></x:c></x:row>'),
      },
    ]);
    expect(await read(file(bytes))).toEqual([{ number: 3, cells: ['', 'shared'] }]);
  });

  it('takes the first sheet that is a worksheet, in tab order, whatever the archive order', async () => {
    const bytes = zip([
      { name: 'xl/worksheets/sheet1.xml', data: sheetXml(row(1, '<c><v>1</v></c>')) },
      { name: 'xl/worksheets/sheet2.xml', data: sheetXml(row(1, '<c><v>2</v></c>')) },
      { name: 'xl/chartsheets/sheet1.xml', data: `${XML}<chartsheet xmlns="${MAIN}"/>` },
      { name: 'xl/workbook.xml', data: workbookXml('rId3', 'rId2', 'rId1') },
      {
        name: 'xl/_rels/workbook.xml.rels',
        data: relsXml([
          ['rId1', 'worksheet', 'worksheets/sheet1.xml'],
          ['rId2', 'worksheet', './worksheets/../worksheets/sheet2.xml'],
          ['rId3', 'chartsheet', 'chartsheets/sheet1.xml'],
        ]),
      },
    ]);
    expect(await read(file(bytes))).toEqual([{ number: 1, cells: ['2'] }]);
  });

  it('falls back to xl/worksheets/sheet1.xml and xl/sharedStrings.xml without a workbook part', async () => {
    const bytes = zip([
      { name: 'xl/sharedStrings.xml', data: sstXml(['only']) },
      { name: 'xl/worksheets/sheet1.xml', data: sheetXml(row(2, '<c r="A2" t="s"><v>0</v></c>')) },
    ]);
    expect(await read(file(bytes))).toEqual([{ number: 2, cells: ['only'] }]);
  });

  it('reads stored (uncompressed) entries too', async () => {
    const bytes = workbook(row(1, '<c t="s"><v>0</v></c><c><v>2</v></c>'), ['stored'], {
      sheet: { method: 0 },
      sst: { method: 0 },
    });
    expect(await read(file(bytes))).toEqual([{ number: 1, cells: ['stored', '2'] }]);
  });

  it('reads a UTF-16 part (with its byte-order mark)', async () => {
    const xml = sheetXml(row(1, '<c t="inlineStr"><is><t>Zoë 😀</t></is></c>'));
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(xml.replace('UTF-8', 'UTF-16'), 'utf16le'),
    ]);
    expect(await read(file(workbook('', undefined, { sheet: { data: utf16 } })))).toEqual([
      { number: 1, cells: ['Zoë 😀'] },
    ]);
  });

  it('ignores cells past maxColumns and cuts text to maxCellChars while gathering it', async () => {
    const long = 'x'.repeat(3 * MiB);
    const strings = ['ab😀cd', `${'y'.repeat(50)}`];
    const rows = row(
      1,
      `<c t="s"><v>0</v></c><c t="s"><v>1</v></c><c t="str"><v>${long}</v></c>` +
        `<c t="inlineStr"><is><r><t>${'z'.repeat(3)}</t></r><r><t>${'z'.repeat(10)}</t></r></is></c>` +
        '<c t="inlineStr"><is><t>past maxColumns</t></is></c>',
    );
    const limits = { maxColumns: 4, maxCellChars: 3, ...LAX };
    expect(await read(file(workbook(rows, strings)), limits)).toEqual([
      { number: 1, cells: ['ab', 'yyy', 'xxx', 'zzz'] },
    ]);
  });

  it('does not hold text outside the cells it reads (a huge text node between elements)', async () => {
    const junk = ' '.repeat(8 * MiB);
    const rows = `${junk}${row(1, `<c><v>1</v>${junk}</c>`)}`;
    expect(await read(file(workbook(rows)), LAX)).toEqual([{ number: 1, cells: ['1'] }]);
  });

  it('stops early when the consumer does, closing and removing everything', async () => {
    const path = file(
      workbook(row(1, '<c t="s"><v>0</v></c>') + row(2, '<c t="s"><v>1</v></c>'), ['a', 'b']),
    );
    const rows = readXlsxRows(path, LIMITS, tmp);
    const first = await rows.next();
    expect(first.value).toEqual({ number: 1, cells: ['a'] });
    // The shared-strings file is already gone from tmpDir, while still readable through its descriptor.
    expect(readdirSync(tmp)).toEqual([]);
    await rows.return(undefined);
    expect(await rows.next()).toEqual({ done: true, value: undefined });
  });

  it('creates nothing before the first next()', async () => {
    const rows = readXlsxRows(file(workbook(row(1, '<c><v>1</v></c>'), ['a'])), LIMITS, tmp);
    await rows.return(undefined);
  });
});

describe('readXlsxRows, refusing', () => {
  it('refuses a shared-strings table over maxSharedStringBytes, counting strings as cut', async () => {
    const strings = Array.from({ length: 2_000 }, (_, i) => `${i}`.padEnd(1_000, 'a'));
    const path = file(workbook(row(1, '<c t="s"><v>0</v></c>'), strings));
    expect((await refusal(path, { maxSharedStringBytes: MiB, ...LAX })).message).toBe(
      'has a shared-strings table over 1 MiB',
    );
    // Cut to 10 characters each, the same table is 20 KB on disk.
    expect(await read(path, { maxSharedStringBytes: MiB, maxCellChars: 10, ...LAX })).toEqual([
      { number: 1, cells: ['0aaaaaaaaa'] },
    ]);
  });

  it('refuses more shared strings than maxSharedStrings', async () => {
    const path = file(
      workbook(
        row(1, '<c t="s"><v>0</v></c>'),
        Array.from({ length: 11 }, (_, i) => `s${i}`),
      ),
    );
    expect((await refusal(path, { maxSharedStrings: 10 })).message).toBe(
      'has a shared-strings table of more than 10 strings',
    );
    expect(await read(path, { maxSharedStrings: 11 })).toHaveLength(1);
  });

  it('refuses an entry of zeros by its declared ratio, before inflating it, even as the first entry', async () => {
    const zeros = Buffer.alloc(200 * MiB);
    const bytes = zip([{ name: 'xl/worksheets/sheet1.xml', data: zeros }]);
    expect(bytes.length).toBeLessThan(300 * 1024);
    expect((await refusal(file(bytes))).message).toBe(
      'entry xl/worksheets/sheet1.xml expands more than 200 times',
    );
  });

  it('refuses an entry that inflates past the size its central directory declares', async () => {
    const spaces = sheetXml(' '.repeat(50 * MiB));
    const bytes = workbook('', undefined, { sheet: { data: spaces, size: 64 * 1024 } });
    expect((await refusal(file(bytes))).message).toBe(
      'is not a valid XLSX workbook: entry xl/worksheets/sheet1.xml is larger than its declared size',
    );
  });

  it('refuses an entry whose actual ratio passes the limit, whatever the central directory says', async () => {
    // Declared 20 MiB from 1 MiB (20 times), but the deflate stream makes the 20 MiB from its
    // first 20 KiB; the rest is padding.
    const spaces = Buffer.from(sheetXml(' '.repeat(20 * MiB)));
    const deflated = deflateRawSync(spaces);
    const stored = Buffer.concat([deflated, Buffer.alloc(MiB - deflated.length)]);
    const bytes = workbook('', undefined, { sheet: { data: spaces, stored } });
    expect((await refusal(file(bytes))).message).toBe(
      'entry xl/worksheets/sheet1.xml expands more than 200 times',
    );
  });

  it('refuses an entry or entries declared over maxEntryBytes or maxTotalBytes', async () => {
    const big = `<c t="inlineStr"><is><t>${'x'.repeat(600 * 1024)}</t></is></c>`;
    const path = file(workbook(row(1, big), [big.slice(0, 600 * 1024)]));
    expect((await refusal(path, { maxEntryBytes: 512 * 1024 })).message).toBe(
      'entry xl/sharedStrings.xml expands to more than 512 KiB',
    );
    expect((await refusal(path, { maxTotalBytes: MiB })).message).toBe(
      'expands to more than 1 MiB in all',
    );
  });

  it('refuses nesting deeper than maxXmlDepth, in the sheet and in the shared-strings table', async () => {
    const deep = `${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`;
    for (const bytes of [workbook(row(1, deep)), workbook('', [`<t>x</t>${deep}`])]) {
      expect((await refusal(file(bytes))).message).toBe('nests XML deeper than 64 elements');
    }
    // 3,000,000 nested elements (9 MB, 22 KiB deflated): refused for its ratio, and with the
    // ratio allowed, at the 65th element.
    const bomb = file(workbook(`${'<a>'.repeat(3_000_000)}`));
    expect((await refusal(bomb)).message).toBe(
      'entry xl/worksheets/sheet1.xml expands more than 200 times',
    );
    expect((await refusal(bomb, LAX)).message).toBe('nests XML deeper than 64 elements');
  });

  it('refuses more rows than maxRows: by number, and by count of (blank) rows', async () => {
    expect((await refusal(file(workbook(row(1_048_577, ''))))).message).toBe(
      'has more than 1,048,576 rows',
    );
    expect(await read(file(workbook(row(1_048_576, '<c><v>1</v></c>'))))).toEqual([
      { number: 1_048_576, cells: ['1'] },
    ]);
    const blank = '<row/>'.repeat(1_048_577);
    expect((await refusal(file(workbook(blank)), LAX)).message).toBe(
      'has more than 1,048,576 rows',
    );
    expect(
      (await refusal(file(workbook(row(1, '') + row(1, '') + row(1, ''))), { maxRows: 2 })).message,
    ).toBe('has more than 2 rows');
  });

  it('refuses a DOCTYPE, in any part, entities or not', async () => {
    const laughs =
      '<!DOCTYPE sst [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>';
    const sheet = `${XML}<!DOCTYPE worksheet><worksheet xmlns="${MAIN}"><sheetData/></worksheet>`;
    const cases = [
      workbook('', undefined, { sheet: { data: sheet } }),
      workbook('', [], {
        sst: { data: `${XML}${laughs}<sst xmlns="${MAIN}"><si><t>&b;</t></si></sst>` },
      }),
      zip([
        {
          name: 'xl/workbook.xml',
          data: workbookXml('rId1').replace('<workbook', '<!DOCTYPE w><workbook'),
        },
        { name: 'xl/worksheets/sheet1.xml', data: sheetXml('') },
      ]),
    ];
    for (const bytes of cases) {
      expect((await refusal(file(bytes))).message).toMatch(
        /^is not a valid XLSX workbook: xl\/\S+ has a DOCTYPE, which a workbook may not have$/,
      );
    }
  });

  it('refuses an encrypted entry, an unsupported compression method, a corrupt entry', async () => {
    expect((await refusal(file(workbook('', undefined, { sheet: { flags: 1 } })))).message).toBe(
      'is not a valid XLSX workbook: entry xl/worksheets/sheet1.xml is encrypted',
    );
    expect((await refusal(file(workbook('', undefined, { sheet: { method: 12 } })))).message).toBe(
      'is not a valid XLSX workbook: entry xl/worksheets/sheet1.xml uses an unsupported compression method (12)',
    );
    // (A worksheet is read up to its </sheetData> only: its CRC is checked when read to its end.)
    expect((await refusal(file(workbook('', ['a'], { sst: { crc: 1 } })))).message).toBe(
      'is not a valid XLSX workbook: entry xl/sharedStrings.xml is corrupt (its CRC-32 does not match)',
    );
    const garbage = Buffer.from('not deflate at all, not at all');
    expect(
      (await refusal(file(workbook('', undefined, { sheet: { stored: garbage } })))).message,
    ).toMatch(/^is not a valid XLSX workbook: entry xl\/worksheets\/sheet1.xml: invalid /);
  });

  it('refuses what is no workbook: no ZIP, no worksheet, too many entries, malformed XML', async () => {
    expect((await refusal(file(Buffer.from('phone,name\n1,2\n')))).message).toMatch(
      /^is not a valid XLSX workbook: .*central directory/,
    );
    expect((await refusal(file(zip([{ name: 'word/document.xml', data: '<w/>' }])))).message).toBe(
      'is not a valid XLSX workbook: it has no worksheet',
    );
    const many = Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => ({
      name: `f${i}`,
      data: '',
      method: 0,
    }));
    expect((await refusal(file(zip(many)))).message).toBe(
      'is not a valid XLSX workbook: it has more than 10,000 ZIP entries',
    );
    expect((await refusal(file(workbook('<row><c><v>1</v></row>')))).message).toMatch(
      /^is not a valid XLSX workbook: xl\/worksheets\/sheet1.xml:\d+:\d+: unexpected close tag/,
    );
    expect((await refusal(file(workbook('<row r="A">')))).message).toBe(
      'is not a valid XLSX workbook: xl/worksheets/sheet1.xml has a row numbered "A"',
    );
    expect((await refusal(file(workbook(row(1, '<c r="XFE1"><v>1</v></c>'))))).message).toBe(
      'is not a valid XLSX workbook: xl/worksheets/sheet1.xml has a cell "XFE1"',
    );
  });

  it('refuses a cell that refers to a shared string past the end of the table', async () => {
    const path = file(workbook(row(4, '<c r="C4" t="s"><v>2</v></c>'), ['a', 'b']));
    expect((await refusal(path)).message).toBe(
      'is not a valid XLSX workbook: cell C4 refers to shared string 2, past the end of the shared-strings table (2 strings)',
    );
  });

  it('refuses an over-long XML name and an endless attribute list without building them', async () => {
    const name = `<${'n'.repeat(4 * MiB)}/>`;
    expect((await refusal(file(workbook(name)), LAX)).message).toMatch(
      /xl\/worksheets\/sheet1.xml has an XML name longer than 1,024 characters$/,
    );
    // Attributes gather until their element's tag ends: checked after every piece parsed.
    const attributes = `<c ${Array.from({ length: 100_000 }, (_, i) => `a${i}="1"`).join(' ')}/>`;
    expect((await refusal(file(workbook(row(1, attributes))), LAX)).message).toMatch(
      /has an element with more than 256 attributes$/,
    );
  });

  it('removes its files and closes its descriptors when it throws mid-sheet, after rows were yielded', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) =>
      row(i + 1, `<c t="s"><v>${i % 2}</v></c>`),
    ).join('');
    const path = file(workbook(`${rows}<row r="x"/>`, ['a', 'b']));
    const seen: XlsxRow[] = [];
    const error = await (async () => {
      for await (const r of readXlsxRows(path, LIMITS, tmp)) {
        seen.push(r);
        // Mid-sheet, the shared-strings file is open but already has no name in tmpDir.
        expect(readdirSync(tmp)).toEqual([]);
      }
    })().catch((e: unknown) => e);
    expect(seen).toHaveLength(5_000);
    expect(error).toBeInstanceOf(XlsxError);
    expect((error as Error).message).toMatch(/has a row numbered "x"/);
  });

  it('passes file-system errors on as they are, still closing the archive', async () => {
    const path = file(workbook(row(1, '<c t="s"><v>0</v></c>'), ['a']));
    rmSync(tmp, { recursive: true });
    await expect(read(path)).rejects.toMatchObject({ code: 'ENOENT' });
    mkdirSync(tmp);
    await expect(read(join(work, 'missing.xlsx'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses limits that are no positive numbers', async () => {
    await expect(read(file(workbook('')), { maxRows: 0 })).rejects.toThrow(RangeError);
    await expect(read(file(workbook('')), { maxCellChars: 1.5 })).rejects.toThrow(RangeError);
  });
});
