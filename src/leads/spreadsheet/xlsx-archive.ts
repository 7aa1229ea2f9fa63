import { pipeline } from 'node:stream';
import { crc32, createInflateRaw } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { XlsxError, asXlsxError, formatBytes, formatCount } from './xlsx-error';

/** The bounds on decompressing that an archive enforces: see {@link XlsxLimits}. */
export interface ArchiveLimits {
  maxEntryBytes: number;
  maxTotalBytes: number;
  maxCompressionRatio: number;
}

/** Entries this small (uncompressed) are exempt from the compression-ratio check. */
export const RATIO_EXEMPT_BYTES = 1024 * 1024;
/**
 * The most entries an archive may have: a workbook has a few dozen (a few hundred with many
 * sheets and pictures), and each is looked at once when the archive is opened.
 */
export const MAX_ENTRIES = 10_000;

const STORED = 0;
const DEFLATED = 8;

/**
 * A ZIP archive on disk, read at random (yauzl): its central directory is read once when it
 * is opened, keeping the XML parts' entries (names ending `.xml` or `.rels`, compared without
 * case as OPC does), and any of them can then be inflated, in any order, within the limits:
 * an entry's declared size and ratio are checked before it is opened, and the bytes actually
 * inflated are counted as they come, the stream destroyed the moment a bound is passed.
 */
export class XlsxArchive {
  /** Decompressed bytes read so far, all entries together. */
  private totalBytes = 0;

  private constructor(
    private readonly zip: ZipFile,
    private readonly entries: Map<string, Entry>,
    private readonly limits: ArchiveLimits,
  ) {}

  /**
   * Opens the archive and reads its central directory.
   * @throws XlsxError when it is no ZIP archive, a malformed one, or has over {@link MAX_ENTRIES} entries
   */
  static async open(path: string, limits: ArchiveLimits): Promise<XlsxArchive> {
    let zip: ZipFile;
    try {
      zip = await yauzl.openPromise(path, {
        lazyEntries: true,
        autoClose: false,
        decodeStrings: true,
        validateEntrySizes: true,
        strictFileNames: false,
      });
    } catch (error) {
      throw asXlsxError(error);
    }
    // An error after the scan (closing the file) would otherwise be an unhandled 'error' event.
    zip.on('error', () => undefined);
    try {
      if (zip.entryCount > MAX_ENTRIES) {
        throw XlsxError.invalid(`it has more than ${formatCount(MAX_ENTRIES)} ZIP entries`);
      }
      const entries = new Map<string, Entry>();
      for await (const entry of zip.eachEntry()) {
        const key = entry.fileName.toLowerCase();
        if (!key.endsWith('.xml') && !key.endsWith('.rels')) continue;
        if (entries.has(key)) throw XlsxError.invalid(`entry ${entry.fileName} appears twice`);
        entries.set(key, entry);
      }
      return new XlsxArchive(zip, entries, limits);
    } catch (error) {
      await closeZip(zip);
      throw asXlsxError(error);
    }
  }

  /** The entry's name as stored, if the archive has it (`name` compared without case). */
  name(name: string): string | undefined {
    return this.entries.get(name.toLowerCase())?.fileName;
  }

  /**
   * Checks, before reading any of them, that these entries fit within the limits as declared
   * by the central directory: each one's size and ratio, and their sum with what was read.
   * @throws XlsxError
   */
  checkDeclared(names: string[]): void {
    let total = this.totalBytes;
    for (const name of names) {
      const entry = this.entry(name);
      this.checkEntry(entry);
      total += entry.uncompressedSize;
      if (total > this.limits.maxTotalBytes) throw this.totalError();
    }
  }

  /**
   * The entry's bytes, inflated as they are read; the caller may stop early. Refused, before
   * it is opened, when encrypted, compressed with another method than deflate, or declared
   * over the limits; while it is read, the moment it passes its declared size (the central
   * directory lied), the entry or total limit, or the ratio (inflated bytes over the
   * compressed bytes consumed so far, past the first {@link RATIO_EXEMPT_BYTES}). At its end,
   * its size and CRC-32 must match the central directory's.
   * @throws XlsxError
   */
  async *read(name: string): AsyncGenerator<Buffer> {
    const entry = this.entry(name);
    this.checkEntry(entry);
    if (this.totalBytes + entry.uncompressedSize > this.limits.maxTotalBytes) {
      throw this.totalError();
    }
    const { maxCompressionRatio } = this.limits;
    let raw;
    try {
      raw = await this.zip.openReadStreamPromise(entry, { decodeFileData: false });
    } catch (error) {
      throw asXlsxError(error, `entry ${entry.fileName}`);
    }
    const inflater = entry.compressionMethod === DEFLATED ? createInflateRaw() : undefined;
    const source = inflater ?? raw;
    // Errors reach the consumer through `source`; destroying it early is not one.
    if (inflater) pipeline(raw, inflater, () => undefined);
    let bytes = 0;
    let crc = 0;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        this.totalBytes += chunk.length;
        if (bytes > entry.uncompressedSize) {
          throw XlsxError.invalid(`entry ${entry.fileName} is larger than its declared size`);
        }
        if (this.totalBytes > this.limits.maxTotalBytes) throw this.totalError();
        const compressed = inflater ? inflater.bytesWritten : bytes;
        if (bytes >= RATIO_EXEMPT_BYTES && bytes > maxCompressionRatio * compressed) {
          throw this.ratioError(entry);
        }
        crc = crc32(chunk, crc);
        yield chunk;
      }
      if (bytes !== entry.uncompressedSize) {
        throw XlsxError.invalid(`entry ${entry.fileName} is shorter than its declared size`);
      }
      if (crc !== entry.crc32) {
        throw XlsxError.invalid(`entry ${entry.fileName} is corrupt (its CRC-32 does not match)`);
      }
    } catch (error) {
      throw asXlsxError(error, `entry ${entry.fileName}`);
    } finally {
      inflater?.destroy();
      raw.destroy();
    }
  }

  /** Closes the archive's file; resolves once it is closed. */
  close(): Promise<void> {
    return closeZip(this.zip);
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name.toLowerCase());
    if (!entry) throw XlsxError.invalid(`it has no entry ${name}`);
    return entry;
  }

  private checkEntry(entry: Entry): void {
    const name = entry.fileName;
    if (entry.isEncrypted()) throw XlsxError.invalid(`entry ${name} is encrypted`);
    if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED) {
      throw XlsxError.invalid(
        `entry ${name} uses an unsupported compression method (${entry.compressionMethod})`,
      );
    }
    if (entry.uncompressedSize > this.limits.maxEntryBytes) {
      throw new XlsxError(
        `entry ${name} expands to more than ${formatBytes(this.limits.maxEntryBytes)}`,
      );
    }
    if (
      entry.uncompressedSize >= RATIO_EXEMPT_BYTES &&
      entry.uncompressedSize > this.limits.maxCompressionRatio * entry.compressedSize
    ) {
      throw this.ratioError(entry);
    }
  }

  private ratioError(entry: Entry): XlsxError {
    return new XlsxError(
      `entry ${entry.fileName} expands more than ${formatCount(this.limits.maxCompressionRatio)} times`,
    );
  }

  private totalError(): XlsxError {
    return new XlsxError(`expands to more than ${formatBytes(this.limits.maxTotalBytes)} in all`);
  }
}

/** Closes a yauzl archive and waits until its file descriptor is closed. */
function closeZip(zip: ZipFile): Promise<void> {
  if (!zip.isOpen) return Promise.resolve();
  return new Promise((resolve) => {
    // yauzl closes the descriptor once no stream of it is open any more: all are destroyed
    // by then, so this is at once; the timer only keeps a bug from hanging the caller.
    const timer = setTimeout(resolve, 5_000);
    timer.unref();
    zip.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    zip.close();
  });
}
