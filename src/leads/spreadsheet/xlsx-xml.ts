import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { XlsxError, formatCount, messageOf } from './xlsx-error';

/** What an XML part's reader is told, element by element. */
export interface XmlHandler {
  /**
   * An element opens: its local name (`x:row` → `row`), its attributes as written, its depth
   * (the root is 1). True to be given the character data inside it, until it closes.
   */
  open(local: string, attributes: Record<string, string>, depth: number): boolean;
  /** An element closes (a self-closing one right after it opens), at the depth it opened. */
  close(local: string, depth: number): void;
  /** Character data (text or CDATA) inside an element `open` asked it for; may come in pieces. */
  text(text: string): void;
}

/** Names as written (`x:row`), no namespace processing: {@link localName} compares local names. */
type ParserOptions = { xmlns: false; fileName: string };

/** The longest element or attribute name accepted, in characters. */
const MAX_NAME_CHARS = 1024;
/** The longest entity reference accepted (`&amp;`, `&#x1F600;`), in characters. */
const MAX_ENTITY_CHARS = 64;
/** The most attributes one element may have. */
const MAX_ATTRIBUTES = 256;
/** Text is given to saxes in pieces of at most this many characters. */
const PIECE_CHARS = 16 * 1024;

/**
 * What saxes 6 accumulates while a token is incomplete (not part of its typed API). A token
 * is only handed over when it ends, so a hostile part could make it build one huge string: the
 * reader looks at these after every piece it writes and clips or refuses them.
 */
interface SaxesPending {
  text: string;
  name: string;
  entity: string;
  piTarget: string;
  attribList: unknown[];
}

/**
 * One XML part of a workbook, parsed as it streams in, bounded: no DOCTYPE (so no entity of
 * any kind beyond XML's five and character references), no nesting deeper than `maxDepth`,
 * no name or attribute list past a fixed size, and no pending text longer than `textCap`
 * characters plus one piece of {@link PIECE_CHARS} (longer text is cut, not refused: the
 * handler cuts a cell's text again to its limit). UTF-8, or UTF-16 with a byte-order mark.
 */
export class XmlPart {
  private readonly parser: SaxesParser<ParserOptions>;
  private readonly pending: SaxesPending;
  private readonly onText = (text: string) => this.handler.text(text);
  private decoder: TextDecoder | undefined;
  private depth = 0;
  private sawRoot = false;
  private head = '';
  /** The depth of the element whose character data goes to the handler, 0 for none. */
  private capturing = 0;

  constructor(
    /** The part's name in the archive, for messages. */
    readonly part: string,
    private readonly maxDepth: number,
    private readonly textCap: number,
    private readonly handler: XmlHandler,
  ) {
    const parser = new SaxesParser<ParserOptions>({ xmlns: false, fileName: part });
    const pending = parser as unknown as SaxesPending;
    if (
      typeof pending.text !== 'string' ||
      typeof pending.name !== 'string' ||
      typeof pending.entity !== 'string' ||
      typeof pending.piTarget !== 'string' ||
      !Array.isArray(pending.attribList)
    ) {
      // A saxes other than 6.0.x: this guard needs checking against it (package.json pins it).
      throw new Error('saxes internals changed: review src/leads/spreadsheet/xlsx-xml.ts');
    }
    this.parser = parser;
    this.pending = pending;
    parser.on('doctype', () => {
      throw XlsxError.invalid(`${this.part} has a DOCTYPE, which a workbook may not have`);
    });
    parser.on('opentag', (tag: SaxesTagPlain) => {
      this.sawRoot = true;
      this.depth += 1;
      if (this.depth > this.maxDepth) {
        throw new XlsxError(`nests XML deeper than ${formatCount(this.maxDepth)} elements`);
      }
      if (this.handler.open(localName(tag.name), tag.attributes, this.depth) && !this.capturing) {
        // Only now is text gathered: saxes skips character data while it has no text handler,
        // so text outside the elements that matter costs neither time nor memory.
        this.capturing = this.depth;
        parser.on('text', this.onText);
      }
    });
    parser.on('closetag', (tag: SaxesTagPlain) => {
      if (this.capturing === this.depth) {
        this.capturing = 0;
        parser.off('text');
      }
      this.handler.close(localName(tag.name), this.depth);
      this.depth -= 1;
    });
    // CDATA is always gathered by saxes (and clipped below); it counts only where captured.
    parser.on('cdata', (text: string) => {
      if (this.capturing) this.handler.text(text);
    });
  }

  /** Parses the next bytes of the part. @throws XlsxError */
  write(bytes: Buffer): void {
    if (!this.decoder) {
      const encoding = encodingOf(bytes);
      try {
        this.decoder = new TextDecoder(encoding);
      } catch {
        // UTF-16BE needs ICU, which every official Node build has.
        throw XlsxError.invalid(`${this.part} is in ${encoding}, which this reader cannot read`);
      }
    }
    const text = this.decoder.decode(bytes, { stream: true });
    // In pieces, so that what saxes gathers between two looks at it stays small.
    for (let i = 0; i < text.length; i += PIECE_CHARS) this.feed(text.slice(i, i + PIECE_CHARS));
  }

  /** The part has ended: checks that it was complete. @throws XlsxError */
  end(): void {
    if (this.decoder) this.feed(this.decoder.decode());
    try {
      this.parser.close();
    } catch (error) {
      throw this.wrap(error);
    }
  }

  private feed(text: string): void {
    if (text === '') return;
    if (!this.sawRoot) {
      // Refused as soon as seen, before saxes gathers the declaration's internal subset.
      const head = this.head + text;
      if (head.includes('<!DOCTYPE')) {
        throw XlsxError.invalid(`${this.part} has a DOCTYPE, which a workbook may not have`);
      }
      this.head = head.slice(-8);
    }
    try {
      this.parser.write(text);
    } catch (error) {
      throw this.wrap(error);
    }
    const pending = this.pending;
    if (pending.text.length > this.textCap) pending.text = pending.text.slice(0, this.textCap);
    if (pending.name.length > MAX_NAME_CHARS || pending.piTarget.length > MAX_NAME_CHARS) {
      throw XlsxError.invalid(
        `${this.part} has an XML name longer than ${formatCount(MAX_NAME_CHARS)} characters`,
      );
    }
    if (pending.entity.length > MAX_ENTITY_CHARS) {
      throw XlsxError.invalid(`${this.part} has an entity reference that never ends`);
    }
    if (pending.attribList.length > MAX_ATTRIBUTES) {
      throw XlsxError.invalid(
        `${this.part} has an element with more than ${formatCount(MAX_ATTRIBUTES)} attributes`,
      );
    }
  }

  private wrap(error: unknown): unknown {
    if (error instanceof XlsxError) return error;
    // saxes's messages name the part, line and column: "xl/workbook.xml:3:7: unclosed tag: sheets".
    return XlsxError.invalid(messageOf(error).slice(0, 300));
  }
}

/** `x:row` → `row`, `row` → `row`. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The encoding of an XML part from its first bytes: UTF-16 by its byte-order mark, else UTF-8. */
function encodingOf(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}
