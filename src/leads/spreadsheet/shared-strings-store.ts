import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { XlsxError, formatBytes, formatCount } from './xlsx-error';

/** The bounds on a shared-strings table: see {@link XlsxLimits}. */
export interface SharedStringsLimits {
  maxSharedStrings: number;
  maxSharedStringBytes: number;
}

/** Strings are written to the file through a buffer of this size. */
const WRITE_BUFFER_BYTES = 256 * 1024;
/**
 * A string is read back with the bytes after it, into one of a few windows of this size: a
 * sheet mostly refers to strings in the order the table has them (a writer adds a string when
 * it first meets it), so most look-ups find their bytes in a window already read.
 */
const WINDOW_BYTES = 64 * 1024;
const WINDOW_COUNT = 4;
/**
 * Strings last read, by index modulo this count (one per slot): the values a column repeats
 * (a company, a title) are decoded once.
 */
const CACHE_SLOTS = 1024;

interface Window {
  start: number;
  end: number;
  buffer: Buffer;
}

/**
 * A workbook's shared-strings table, kept on disk instead of in memory: the strings are
 * appended to a file in a directory of the caller's (UTF-8, each already cut by the reader),
 * and only where each one ends is kept in memory (a typed array of at most
 * `maxSharedStrings` numbers: 4 bytes each for a table under 4 GiB). A string is read back by
 * its index with positioned reads ({@link get}), through a few 64 KiB windows and a small
 * cache of the strings last read. The file is removed from its directory as soon as it is
 * opened (POSIX: it lives on through the descriptor), so it is gone even if the thread
 * running the reader is terminated; {@link close} closes it (and removes it where it could not
 * be removed while open).
 */
export class SharedStringsStore {
  private fd: number | undefined;
  /** The file's path while it still has one (only where it could not be removed while open). */
  private path: string | undefined;
  private ends: Uint32Array | Float64Array;
  private count = 0;
  private bytes = 0;
  private writeBuffer: Buffer | undefined = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  private written = 0;
  private readonly windows: Window[] = [];
  private nextWindow = 0;
  private readonly cacheKeys = new Int32Array(CACHE_SLOTS).fill(-1);
  private readonly cacheValues = new Array<string>(CACHE_SLOTS);

  /** Creates the file in `tmpDir`, a directory of the caller's. */
  constructor(
    tmpDir: string,
    private readonly limits: SharedStringsLimits,
  ) {
    const capacity = Math.min(1024, limits.maxSharedStrings);
    this.ends =
      limits.maxSharedStringBytes <= 0xffffffff
        ? new Uint32Array(capacity)
        : new Float64Array(capacity);
    const path = join(tmpDir, `xlsx-shared-strings-${randomUUID()}.tmp`);
    this.fd = openSync(path, 'wx+', 0o600);
    try {
      unlinkSync(path);
    } catch {
      this.path = path;
    }
  }

  /** How many strings the table has. */
  get size(): number {
    return this.count;
  }

  /**
   * Sizes the index for `expected` strings (the table's `uniqueCount`), within the limit, before
   * the first string: it need not grow then.
   */
  expect(expected: number): void {
    if (expected > this.ends.length && this.count === 0) {
      const capacity = Math.min(expected, this.limits.maxSharedStrings);
      this.ends = new (this.ends.constructor as Uint32ArrayConstructor)(capacity);
    }
  }

  /**
   * Appends the next string of the table.
   * @throws XlsxError past `maxSharedStrings` strings or `maxSharedStringBytes` bytes
   */
  add(text: string): void {
    const { maxSharedStrings, maxSharedStringBytes } = this.limits;
    if (this.count >= maxSharedStrings) {
      throw new XlsxError(
        `has a shared-strings table of more than ${formatCount(maxSharedStrings)} strings`,
      );
    }
    const buffer = this.writeBuffer;
    if (!buffer || this.fd === undefined) throw new Error('shared strings: add after finish');
    const most = text.length * 3;
    if (this.written + most > buffer.length) this.flush();
    let length: number;
    let large: Buffer | undefined;
    if (most > buffer.length) {
      large = Buffer.from(text);
      length = large.length;
    } else {
      length = buffer.write(text, this.written);
    }
    if (this.bytes + length > maxSharedStringBytes) {
      throw new XlsxError(`has a shared-strings table over ${formatBytes(maxSharedStringBytes)}`);
    }
    if (large) writeAll(this.fd, large);
    else this.written += length;
    this.bytes += length;
    if (this.count === this.ends.length) this.grow();
    this.ends[this.count] = this.bytes;
    this.count += 1;
  }

  /** The table is complete: what is buffered is written, and strings can be read. */
  finish(): void {
    this.flush();
    this.writeBuffer = undefined;
  }

  /** The string at `index` (0-based), or undefined past the end of the table. */
  get(index: number): string | undefined {
    if (!(index >= 0 && index < this.count)) return undefined;
    const slot = index & (CACHE_SLOTS - 1);
    if (this.cacheKeys[slot] === index) return this.cacheValues[slot];
    const start = index === 0 ? 0 : this.ends[index - 1];
    const end = this.ends[index];
    const text = end === start ? '' : this.read(start, end);
    this.cacheKeys[slot] = index;
    this.cacheValues[slot] = text;
    return text;
  }

  /** Closes the file (and removes it if it still has a name). Safe to call more than once. */
  close(): void {
    const { fd, path } = this;
    this.fd = undefined;
    this.path = undefined;
    this.writeBuffer = undefined;
    this.windows.length = 0;
    this.cacheValues.fill('');
    if (fd !== undefined) closeSync(fd);
    if (path !== undefined) {
      try {
        unlinkSync(path);
      } catch {
        // Gone already.
      }
    }
  }

  private read(start: number, end: number): string {
    for (const window of this.windows) {
      if (start >= window.start && end <= window.end) {
        return window.buffer.toString('utf8', start - window.start, end - window.start);
      }
    }
    if (this.fd === undefined) throw new Error('shared strings: read after close');
    if (end - start > WINDOW_BYTES) {
      const buffer = Buffer.allocUnsafe(end - start);
      readAll(this.fd, buffer, buffer.length, start);
      return buffer.toString('utf8');
    }
    let window = this.windows[this.nextWindow];
    if (!window) {
      window = { start: 0, end: 0, buffer: Buffer.allocUnsafe(WINDOW_BYTES) };
      this.windows.push(window);
    }
    this.nextWindow = (this.nextWindow + 1) % WINDOW_COUNT;
    const length = Math.min(WINDOW_BYTES, this.bytes - start);
    readAll(this.fd, window.buffer, length, start);
    window.start = start;
    window.end = start + length;
    return window.buffer.toString('utf8', 0, end - start);
  }

  private flush(): void {
    if (this.written === 0 || !this.writeBuffer || this.fd === undefined) return;
    writeAll(this.fd, this.writeBuffer.subarray(0, this.written));
    this.written = 0;
  }

  private grow(): void {
    const capacity = Math.min(this.ends.length * 2, this.limits.maxSharedStrings);
    const ends = new (this.ends.constructor as Uint32ArrayConstructor)(capacity);
    ends.set(this.ends);
    this.ends = ends;
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

function readAll(fd: number, buffer: Buffer, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, done, length - done, position + done);
    if (read === 0) throw new Error('shared strings: the file is shorter than written');
    done += read;
  }
}
