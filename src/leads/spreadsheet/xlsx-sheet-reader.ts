import { posix } from 'node:path';
import { SharedStringsStore } from './shared-strings-store';
import { XlsxArchive } from './xlsx-archive';
import { XlsxError, formatCount } from './xlsx-error';
import { XmlPart, type XmlHandler } from './xlsx-xml';

export { XlsxError } from './xlsx-error';

/**
 * Bounds on reading an XLSX workbook; every one is enforced before or while reading, never
 * after. Why each exists and the values the service uses: docs/security.md#spreadsheet-uploads.
 * Every field is a positive number (an integer but for `maxCompressionRatio`); sizes are bytes.
 */
export interface XlsxLimits {
  /**
   * Rows of the worksheet, blank ones included: both the highest row number and the count of
   * `<row>` elements (e.g. 1,048,576, as many as a spreadsheet program has).
   */
  maxRows: number;
  /** Cells beyond this column are ignored, not an error (e.g. 200). */
  maxColumns: number;
  /**
   * A cell's text is cut to this many UTF-16 code units (e.g. 1,000); a surrogate pair the cut
   * would split is dropped whole. The cut is made while the text is gathered, not after: no
   * string of more than 7 × `maxCellChars` code units (room for `_xHHHH_` escapes, decoded
   * before the final cut), or 8 Ki, is built for a cell, plus the 16 Ki characters the XML
   * parser may gather between two checks. A shared string is cut before it is stored.
   */
  maxCellChars: number;
  /**
   * Most decompressed bytes of any one ZIP entry read: the central directory's declared size
   * is checked before the entry is opened, the bytes inflated are counted as they come
   * (e.g. 1 GiB).
   */
  maxEntryBytes: number;
  /** Most decompressed bytes of all the entries read, together (e.g. 1.5 GiB). */
  maxTotalBytes: number;
  /**
   * Most uncompressed/compressed ratio of an entry read, declared and then actual (e.g. 200);
   * an entry under 1 MiB uncompressed is exempt, and so are the first 1 MiB of any entry.
   */
  maxCompressionRatio: number;
  /** Most strings in the shared-strings table (e.g. 4,194,304). */
  maxSharedStrings: number;
  /**
   * Most bytes of the shared-strings table as stored on disk: UTF-8, each string already cut
   * to `maxCellChars` (e.g. 128 MiB).
   */
  maxSharedStringBytes: number;
  /** Deepest element nesting in any XML part read (e.g. 64; a worksheet needs about 6). */
  maxXmlDepth: number;
}

/**
 * One row of the first worksheet. `number` is the row's 1-based number in the worksheet (as a
 * spreadsheet program shows it, blank rows counted); `cells` its cells' text, index 0 being
 * column A, raw (not trimmed), at most `maxColumns` of them, a missing cell as `''`, and
 * without trailing empty cells (a yielded row has at least one non-empty cell).
 */
export interface XlsxRow {
  number: number;
  cells: string[];
}

/**
 * The rows of the first worksheet of the XLSX workbook at `path`, streamed, in the order of the
 * file; rows whose cells are all empty are still counted toward `maxRows` but not yielded.
 * The format read (docs/dashboard.md#spreadsheet-imports):
 *
 * - The worksheet is the first `<sheet>` of `xl/workbook.xml` (in tab order, hidden ones too)
 *   whose relationship in `xl/_rels/workbook.xml.rels` is a worksheet; else
 *   `xl/worksheets/sheet1.xml`. The shared-strings table is the one that file relates; else
 *   `xl/sharedStrings.xml`; else none. Nothing else in the archive is read.
 * - A cell's text: a shared string (`t="s"`), an inline string (`t="inlineStr"`, rich text
 *   runs joined, phonetic runs left out), a formula's cached result (`t="str"`; the formula
 *   itself is ignored), `TRUE`/`FALSE` (`t="b"`), an error as written (`t="e"`, `#N/A`), a
 *   date as written (`t="d"`), or a number: an integer below 1e21 in plain digits (a phone
 *   typed as a number stays `14155550100`), any other as `String(Number(v))`. OOXML's
 *   `_xHHHH_` escapes in strings are decoded. A cell or row without an `r` attribute follows
 *   the one before it.
 * - A cell referring to a shared string past the end of the table makes the workbook invalid
 *   (an XlsxError naming the cell), rather than an empty cell that would hide the fault.
 * - Besides `limits`, fixed bounds: at most 10,000 ZIP entries, XML names of at most 1,024
 *   characters, at most 256 attributes on an element, the first 1,000 sheets looked at. Only
 *   deflate and stored entries are read, none encrypted, and no XML part may have a DOCTYPE.
 *   Rows out of order are yielded as they come, with their numbers.
 *
 * Memory stays small whatever the file: one row at a time, the shared-strings table spilled
 * to a file in `tmpDir` (a directory the caller owns) with only its offsets in memory, and
 * bounded caches. That file is removed from `tmpDir` as soon as it is opened (it lives on
 * through its descriptor; where the system cannot do that, it is removed at the end), and its
 * descriptor is closed when the iteration ends on every path: completed, thrown, or the
 * consumer stopping early with `return()`; nothing is created before the first `next()`.
 * Nothing decompressed is written anywhere else. The archive's file descriptor is closed by
 * then too. The reader does synchronous file reads while it runs: it is meant for a worker
 * thread.
 *
 * @param path the workbook (a ZIP archive) on disk, read at random
 * @param limits the bounds enforced (docs/security.md#spreadsheet-uploads)
 * @param tmpDir an existing directory of the caller's, for the shared-strings table
 * @throws XlsxError for every limit passed or malformation, its `message` written for the
 *   uploader, to follow "file": "has more than 1,048,576 rows", "nests XML deeper than 64
 *   elements", "has a shared-strings table over 128 MiB", "has a shared-strings table of more
 *   than 4,194,304 strings", "entry xl/worksheets/sheet1.xml expands more than 200 times",
 *   "entry xl/worksheets/sheet1.xml expands to more than 1 GiB", "expands to more than 1.5 GiB
 *   in all", and "is not a valid XLSX workbook: …" for a malformation (a DOCTYPE, an
 *   encrypted entry, an entry larger than declared, a cell referring past the shared-strings
 *   table, an XML syntax error with its part, line and column, …).
 * @throws RangeError for limits that are not positive numbers; the file system's own errors
 *   (a missing `path`, a full disk) as they are.
 */
export async function* readXlsxRows(
  path: string,
  limits: XlsxLimits,
  tmpDir: string,
): AsyncGenerator<XlsxRow> {
  checkLimits(limits);
  const archive = await XlsxArchive.open(path, limits);
  let store: SharedStringsStore | undefined;
  try {
    const { sheet, sharedStrings } = await locateParts(archive, limits);
    // The two big parts' declared sizes, checked together before either is read.
    archive.checkDeclared(sharedStrings ? [sharedStrings, sheet] : [sheet]);
    if (sharedStrings) {
      store = new SharedStringsStore(tmpDir, limits);
      await readSharedStrings(archive, sharedStrings, limits, store);
    }
    yield* sheetRows(archive, sheet, limits, store);
  } finally {
    store?.close();
    await archive.close();
  }
}

const LIMIT_NAMES = [
  'maxRows',
  'maxColumns',
  'maxCellChars',
  'maxEntryBytes',
  'maxTotalBytes',
  'maxCompressionRatio',
  'maxSharedStrings',
  'maxSharedStringBytes',
  'maxXmlDepth',
] as const satisfies ReadonlyArray<keyof XlsxLimits>;

function checkLimits(limits: XlsxLimits): void {
  for (const name of LIMIT_NAMES) {
    const value = limits[name];
    const integer = name !== 'maxCompressionRatio';
    if (!(value > 0 && (integer ? Number.isSafeInteger(value) : Number.isFinite(value)))) {
      throw new RangeError(`XlsxLimits.${name} must be a positive number, not ${value}`);
    }
  }
}

/** How many characters of a string are gathered before its escapes are decoded and it is cut. */
const rawChars = (limits: XlsxLimits) => limits.maxCellChars * ESCAPE_CHARS;
/** The most text a pending XML token may hold (see XmlPart); enough for any attribute value. */
const tokenChars = (limits: XlsxLimits) => Math.max(rawChars(limits), 8192);

const WORKBOOK = 'xl/workbook.xml';
const WORKBOOK_RELATIONSHIPS = 'xl/_rels/workbook.xml.rels';
const DEFAULT_SHEET = 'xl/worksheets/sheet1.xml';
const DEFAULT_SHARED_STRINGS = 'xl/sharedStrings.xml';
/** How many of the workbook's sheets are looked at, in order, for the first worksheet. */
const MAX_SHEETS = 1_000;
/** Relationship ids longer than this are ignored. */
const MAX_ID_CHARS = 255;
/** Namespaces of relationship ids (`r:id`): transitional and strict OOXML. */
const RELATIONSHIP_NAMESPACES = new Set([
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  'http://purl.oclc.org/ooxml/officeDocument/relationships',
]);

/** The sheets of `xl/workbook.xml` in tab order: their relationship ids. */
class WorkbookHandler implements XmlHandler {
  readonly sheetIds: string[] = [];
  done = false;
  private readonly relationshipPrefixes = new Set<string>();

  open(local: string, attributes: Record<string, string>): boolean {
    for (const name in attributes) {
      if (name.startsWith('xmlns:') && RELATIONSHIP_NAMESPACES.has(attributes[name])) {
        this.relationshipPrefixes.add(name.slice('xmlns:'.length));
      }
    }
    if (local === 'sheet' && this.sheetIds.length < MAX_SHEETS) {
      // The `id` in the relationships namespace, whatever its prefix; any prefixed `id` else.
      let id: string | undefined;
      for (const name in attributes) {
        const colon = name.indexOf(':');
        if (colon <= 0 || name.slice(colon + 1) !== 'id' || name.startsWith('xmlns:')) continue;
        if (this.relationshipPrefixes.has(name.slice(0, colon))) {
          id = attributes[name];
          break;
        }
        id ??= attributes[name];
      }
      if (id && id.length <= MAX_ID_CHARS) this.sheetIds.push(id);
    }
    return false;
  }

  close(local: string): void {
    // The sheets are all that is needed: the rest of the part is not read.
    if (local === 'sheets') this.done = true;
  }

  text(): void {}
}

/** The targets of the workbook's relationships that matter: the sheets asked for, the shared strings. */
class RelationshipsHandler implements XmlHandler {
  readonly worksheets = new Map<string, string>();
  sharedStrings: string | undefined;
  readonly done = false;

  constructor(private readonly wanted: Set<string>) {}

  open(local: string, attributes: Record<string, string>): boolean {
    if (local !== 'Relationship') return false;
    const { Id: id, Type: type, Target: target, TargetMode: mode } = attributes;
    if (!target || !type || mode === 'External') return false;
    if (type.endsWith('/worksheet')) {
      if (id && this.wanted.has(id) && !this.worksheets.has(id)) this.worksheets.set(id, target);
    } else if (type.endsWith('/sharedStrings')) {
      this.sharedStrings ??= target;
    }
    return false;
  }

  close(): void {}
  text(): void {}
}

/**
 * A relationship's target as an entry name: relative to `xl/` (the workbook's folder), or
 * absolute from the archive's root (`/xl/...`); undefined when it leaves the archive.
 */
export function resolveTarget(target: string): string | undefined {
  let path = target.replace(/[?#].*$/s, '').replace(/\\/g, '/');
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const name = posix.normalize(path.startsWith('/') ? path.slice(1) : `xl/${path}`);
  if (name === '..' || name.startsWith('../') || name.startsWith('/')) return undefined;
  return name;
}

/** Reads an XML part through a handler, to its end or until the handler is done. */
async function readPart(
  archive: XlsxArchive,
  name: string,
  limits: XlsxLimits,
  handler: XmlHandler & { readonly done: boolean },
): Promise<void> {
  const xml = new XmlPart(name, limits.maxXmlDepth, tokenChars(limits), handler);
  for await (const chunk of archive.read(name)) {
    xml.write(chunk);
    if (handler.done) return;
  }
  xml.end();
}

/** The entry names of the first worksheet and of the shared-strings table (if any). */
async function locateParts(
  archive: XlsxArchive,
  limits: XlsxLimits,
): Promise<{ sheet: string; sharedStrings: string | undefined }> {
  const workbook = new WorkbookHandler();
  const workbookName = archive.name(WORKBOOK);
  if (workbookName) await readPart(archive, workbookName, limits, workbook);
  const relationships = new RelationshipsHandler(new Set(workbook.sheetIds));
  const relationshipsName = archive.name(WORKBOOK_RELATIONSHIPS);
  if (relationshipsName) await readPart(archive, relationshipsName, limits, relationships);

  let sheet: string | undefined;
  for (const id of workbook.sheetIds) {
    const target = relationships.worksheets.get(id);
    if (target === undefined) continue;
    const resolved = resolveTarget(target);
    sheet = resolved && archive.name(resolved);
    if (sheet) break;
  }
  sheet ??= archive.name(DEFAULT_SHEET);
  if (!sheet) throw XlsxError.invalid('it has no worksheet');

  const target = relationships.sharedStrings && resolveTarget(relationships.sharedStrings);
  const sharedStrings =
    (target && archive.name(target)) || archive.name(DEFAULT_SHARED_STRINGS) || undefined;
  return { sheet, sharedStrings };
}

/** Reads the shared-strings table into the store, string by string. */
class SharedStringsHandler implements XmlHandler {
  readonly done = false;
  private inString = false;
  private phonetic = 0;
  private text_ = '';

  constructor(
    private readonly store: SharedStringsStore,
    private readonly limits: XlsxLimits,
  ) {}

  open(local: string, attributes: Record<string, string>, depth: number): boolean {
    if (depth === 1) {
      const expected = Number(attributes.uniqueCount);
      if (local === 'sst' && Number.isSafeInteger(expected)) this.store.expect(expected);
      return false;
    }
    if (depth === 2) {
      this.inString = local === 'si';
      this.text_ = '';
      this.phonetic = 0;
      return false;
    }
    if (!this.inString) return false;
    // Text directly in <si>, or in its rich text runs <r>; not in phonetic runs <rPh>.
    if (local === 'rPh') this.phonetic += 1;
    return local === 't' && this.phonetic === 0;
  }

  close(local: string, depth: number): void {
    if (!this.inString) return;
    if (depth === 2) {
      this.inString = false;
      this.store.add(stringText(this.text_, this.limits.maxCellChars));
    } else if (local === 'rPh') {
      this.phonetic -= 1;
    }
  }

  text(text: string): void {
    this.text_ = appendCut(this.text_, text, rawChars(this.limits));
  }
}

async function readSharedStrings(
  archive: XlsxArchive,
  name: string,
  limits: XlsxLimits,
  store: SharedStringsStore,
): Promise<void> {
  await readPart(archive, name, limits, new SharedStringsHandler(store, limits));
  store.finish();
}

/** Turns the worksheet's `<sheetData>` into rows, queued for the reader to yield. */
class SheetHandler implements XmlHandler {
  /** Rows complete and not yet yielded. */
  rows: XlsxRow[] = [];
  /** Whether `</sheetData>` was met: the rest of the part is not read. */
  done = false;
  private dataDepth = 0;
  private rowNumber = 0;
  private rowCount = 0;
  private inRow = false;
  private cells: string[] = [];
  private column = -1;
  private inCell = false;
  private cellKept = false;
  private cellType = '';
  private value = '';
  private inInline = false;
  private phonetic = 0;
  private readonly rawChars: number;

  constructor(
    private readonly part: string,
    private readonly limits: XlsxLimits,
    private readonly store: SharedStringsStore | undefined,
  ) {
    this.rawChars = rawChars(limits);
  }

  open(local: string, attributes: Record<string, string>, depth: number): boolean {
    if (this.dataDepth === 0) {
      if (local === 'sheetData') this.dataDepth = depth;
      return false;
    }
    const level = depth - this.dataDepth;
    if (level === 1) {
      if (local === 'row') this.startRow(attributes.r);
      return false;
    }
    if (!this.inRow) return false;
    if (level === 2) {
      if (local === 'c') this.startCell(attributes);
      return false;
    }
    if (!this.inCell || !this.cellKept) return false;
    switch (local) {
      case 'v':
        return level === 3;
      case 'is':
        this.inInline = level === 3;
        return false;
      case 'rPh':
        this.phonetic += 1;
        return false;
      case 't':
        return this.inInline && this.phonetic === 0;
      default:
        return false;
    }
  }

  close(local: string, depth: number): void {
    if (this.dataDepth === 0 || this.done) return;
    const level = depth - this.dataDepth;
    if (level === 0) {
      this.done = true;
    } else if (level === 1) {
      if (this.inRow) this.endRow();
    } else if (level === 2) {
      if (this.inCell) this.endCell();
    } else if (local === 'is' && level === 3) {
      this.inInline = false;
    } else if (local === 'rPh' && this.phonetic > 0) {
      this.phonetic -= 1;
    }
  }

  text(text: string): void {
    this.value = appendCut(this.value, text, this.rawChars);
  }

  private startRow(ref: string | undefined): void {
    let number = this.rowNumber + 1;
    if (ref !== undefined) {
      number = /^\s*\d{1,16}\s*$/.test(ref) ? Number(ref) : 0;
      if (number < 1) {
        throw XlsxError.invalid(`${this.part} has a row numbered "${ref.slice(0, 20)}"`);
      }
    }
    this.rowCount += 1;
    const { maxRows } = this.limits;
    if (number > maxRows || this.rowCount > maxRows) {
      throw new XlsxError(`has more than ${formatCount(maxRows)} rows`);
    }
    this.rowNumber = number;
    this.inRow = true;
    this.cells = [];
    this.column = -1;
  }

  private endRow(): void {
    this.inRow = false;
    this.inCell = false;
    if (this.cells.length > 0) this.rows.push({ number: this.rowNumber, cells: this.cells });
  }

  private startCell(attributes: Record<string, string>): void {
    const ref = attributes.r;
    let column = this.column + 1;
    if (ref !== undefined) {
      column = columnOf(ref);
      if (column < 0) {
        throw XlsxError.invalid(`${this.part} has a cell "${ref.slice(0, 20)}"`);
      }
    }
    this.column = column;
    this.inCell = true;
    this.cellKept = column < this.limits.maxColumns;
    this.cellType = attributes.t ?? 'n';
    this.value = '';
    this.inInline = false;
    this.phonetic = 0;
  }

  private endCell(): void {
    this.inCell = false;
    if (!this.cellKept) return;
    const text = this.cellText();
    if (text === '') return;
    const { cells, column } = this;
    while (cells.length < column) cells.push('');
    cells[column] = text;
  }

  private cellText(): string {
    const { value } = this;
    const max = this.limits.maxCellChars;
    switch (this.cellType) {
      case 's': {
        if (value.trim() === '') return '';
        const index = /^\s*\d{1,10}\s*$/.test(value) ? Number(value) : -1;
        const text = index >= 0 ? this.store?.get(index) : undefined;
        if (text === undefined) {
          const cell = `cell ${columnName(this.column)}${this.rowNumber}`;
          if (index < 0) {
            throw XlsxError.invalid(`${cell} refers to shared string "${value.slice(0, 20)}"`);
          }
          const size = this.store?.size ?? 0;
          throw XlsxError.invalid(
            `${cell} refers to shared string ${index}, past the end of the shared-strings ` +
              `table (${formatCount(size)} ${size === 1 ? 'string' : 'strings'})`,
          );
        }
        return text;
      }
      case 'inlineStr':
      case 'str':
        return stringText(value, max);
      case 'b': {
        const flag = value.trim();
        if (flag === '1' || flag === 'true') return 'TRUE';
        if (flag === '0' || flag === 'false') return 'FALSE';
        return cut(value, max);
      }
      case 'n':
        return numberText(value, max);
      default:
        // `e` (an error: `#N/A`), `d` (an ISO 8601 date), or a type no writer should use.
        return cut(value, max);
    }
  }
}

async function* sheetRows(
  archive: XlsxArchive,
  name: string,
  limits: XlsxLimits,
  store: SharedStringsStore | undefined,
): AsyncGenerator<XlsxRow> {
  const sheet = new SheetHandler(name, limits, store);
  const xml = new XmlPart(name, limits.maxXmlDepth, tokenChars(limits), sheet);
  for await (const chunk of archive.read(name)) {
    let failure: unknown;
    try {
      xml.write(chunk);
    } catch (error) {
      failure = error;
    }
    // The rows before a fault are yielded before it is thrown, as they would be a chunk earlier.
    if (sheet.rows.length > 0) {
      const rows = sheet.rows;
      sheet.rows = [];
      yield* rows;
    }
    if (failure !== undefined) throw failure;
    if (sheet.done) return;
  }
  xml.end();
}

/** The 0-based column of a cell reference (`B7` → 1, up to `XFD`), or -1 if it is none. */
export function columnOf(ref: string): number {
  let column = 0;
  let i = 0;
  for (; i < ref.length && i < 4; i++) {
    const code = ref.charCodeAt(i) & ~0x20; // upper case
    if (code < 0x41 || code > 0x5a) break;
    column = column * 26 + (code - 0x40);
  }
  if (i === 0 || column > 16_384) return -1;
  for (let j = i; j < ref.length; j++) {
    const code = ref.charCodeAt(j);
    if (code < 0x30 || code > 0x39) return -1;
  }
  return column - 1;
}

/** The letters of a 0-based column: 0 → `A`, 27 → `AB`. */
function columnName(column: number): string {
  let name = '';
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    name = String.fromCharCode(0x41 + ((n - 1) % 26)) + name;
  }
  return name;
}

/** `_xHHHH_` is one character written as 7: so many raw characters give `maxCellChars`. */
const ESCAPE_CHARS = 7;
const ESCAPE = /_x([0-9A-Fa-f]{4})_/g;

/** The text, with room left for at most `max` characters, and this piece added. */
function appendCut(text: string, piece: string, max: number): string {
  if (text.length >= max) return text;
  return text.length + piece.length <= max
    ? text + piece
    : text + piece.slice(0, max - text.length);
}

/** The text cut to `max` UTF-16 code units, without leaving half a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A string cell's text: OOXML's `_xHHHH_` escapes decoded (`_x000D_` is a carriage return), cut. */
function stringText(raw: string, max: number): string {
  const text = raw.includes('_x')
    ? raw.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    : raw;
  return cut(text, max);
}

/**
 * A number cell's text: `String(Number(v))`, so an integer below 1e21 has plain digits and
 * no exponent (`1.4155550100E10` → `14155550100`); text that is no number is kept as written.
 */
function numberText(raw: string, max: number): string {
  const value = raw.trim();
  if (value === '') return '';
  const number = Number(value);
  return Number.isFinite(number) ? String(number) : cut(raw, max);
}
