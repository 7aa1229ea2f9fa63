/**
 * Hostile spreadsheet files, built as an attacker builds them (docs/security.md#spreadsheet-uploads):
 * a minimal XLSX workbook written by a small ZIP writer whose entries can be streamed through
 * deflate (so a gigabyte of XML costs the test a megabyte or two) and whose central directory
 * can lie about sizes.
 */
import { createDeflateRaw, crc32 } from 'node:zlib';

/** One entry of a ZIP archive: its name and its bytes, as a whole or as chunks. */
export interface ZipEntry {
  name: string;
  data: Buffer | (() => Iterable<Buffer>);
  /** The uncompressed size the archive declares, when it should lie. */
  declaredSize?: number;
}

async function deflate(
  chunks: Iterable<Buffer>,
): Promise<{ compressed: Buffer; crc: number; size: number }> {
  const deflater = createDeflateRaw({ level: 6 });
  const out: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    deflater.on('end', resolve);
    deflater.on('error', reject);
  });
  let crc = 0;
  let size = 0;
  for (const chunk of chunks) {
    crc = crc32(chunk, crc);
    size += chunk.length;
    if (!deflater.write(chunk)) await new Promise((resolve) => deflater.once('drain', resolve));
  }
  deflater.end();
  await done;
  return { compressed: Buffer.concat(out), crc, size };
}

/** A ZIP archive of deflated entries, in the order given. */
export async function zip(entries: ZipEntry[]): Promise<Buffer> {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const chunks = Buffer.isBuffer(entry.data) ? [entry.data] : entry.data();
    const { compressed, crc, size } = await deflate(chunks);
    const declared = entry.declaredSize ?? size;
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(declared >>> 0, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, compressed);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(crc >>> 0, 16);
    header.writeUInt32LE(compressed.length, 20);
    header.writeUInt32LE(declared >>> 0, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets></workbook>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`;

/** The sheet part's opening, before its rows. */
export const SHEET_OPEN =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
/** The sheet part's closing, after its rows. */
export const SHEET_CLOSE = '</sheetData></worksheet>';

/** A sheet part with the given `<row>` elements. */
export const sheetXml = (rows: string): Buffer => Buffer.from(`${SHEET_OPEN}${rows}${SHEET_CLOSE}`);

/** A shared-strings part with the given strings. */
export const sharedStringsXml = (strings: string[]): Buffer =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`,
  );

/**
 * A minimal XLSX workbook: its first worksheet's part and shared-strings part as given (the
 * sheet first, as spreadsheet programs write them).
 */
export function workbook(
  sheet: ZipEntry['data'],
  sharedStrings?: ZipEntry['data'],
): Promise<Buffer> {
  return zip([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(ROOT_RELS) },
    { name: 'xl/workbook.xml', data: Buffer.from(WORKBOOK) },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from(WORKBOOK_RELS) },
    { name: 'xl/worksheets/sheet1.xml', data: sheet },
    { name: 'xl/sharedStrings.xml', data: sharedStrings ?? sharedStringsXml([]) },
  ]);
}

/** A valid two-row sheet over shared strings 0 and 1 (`phone`, a phone number). */
export const PHONE_SHEET = sheetXml(
  '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row>',
);

/**
 * The shared-strings bomb: `count` strings of `length` characters, streamed (1,000,000 × 1,000
 * is about 1 GB of XML, about 2 MiB compressed).
 */
export function sharedStringsBomb(count: number, length: number): () => Iterable<Buffer> {
  return function* () {
    yield Buffer.from(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${count}" uniqueCount="${count}"><si><t>phone</t></si><si><t>+14155550100</t></si>`,
    );
    const perChunk = 1000;
    const chunk = Buffer.from(`<si><t>${'A'.repeat(length)}</t></si>`.repeat(perChunk));
    for (let i = 0; i < count; i += perChunk) yield chunk;
    yield Buffer.from('</sst>');
  };
}

/** `bytes` bytes of zeros, streamed in MiB chunks. */
export function zeros(bytes: number): () => Iterable<Buffer> {
  return function* () {
    const mib = Buffer.alloc(1024 * 1024);
    for (let left = bytes; left > 0; left -= mib.length)
      yield mib.subarray(0, Math.min(left, mib.length));
  };
}

/** A sheet whose first cell nests `depth` elements (22 KiB compressed for 3,000,000). */
export function nestedSheet(depth: number): () => Iterable<Buffer> {
  return function* () {
    yield Buffer.from(`${SHEET_OPEN}<row r="1"><c r="A1" t="inlineStr"><is>`);
    const open = Buffer.from('<a>'.repeat(10_000));
    const close = Buffer.from('</a>'.repeat(10_000));
    for (let i = 0; i < depth; i += 10_000) yield open;
    for (let i = 0; i < depth; i += 10_000) yield close;
    yield Buffer.from(`</is></c></row>${SHEET_CLOSE}`);
  };
}
