import { Readable } from 'node:stream';
import { FileTooLargeError } from './spreadsheet-temp-files.service';

/** The size of a stored part of an uploaded file, in bytes (the last part may be shorter). */
export const FILE_PART_BYTES = 1024 * 1024;

/**
 * Stores a received upload (a local file's stream) in parts of {@link FILE_PART_BYTES}
 * (docs/dashboard.md#spreadsheet-imports), one `writePart` each, in order: at most one part is
 * held in memory, whatever the file's size.
 * @param maxBytes the largest file taken.
 * @param writePart stores part number `part` (from 0) of the file: in the upload, a row of
 *   `spreadsheet_import_file_part` inserted in the upload's transaction.
 * @returns the file's size and its number of parts.
 * @throws FileTooLargeError as soon as more than `maxBytes` arrived (the caller rolls back).
 */
export async function storeFileParts(
  source: AsyncIterable<Buffer>,
  maxBytes: number,
  writePart: (part: number, data: Buffer) => Promise<void>,
): Promise<{ sizeBytes: number; partCount: number }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let sizeBytes = 0;
  let partCount = 0;
  const flush = async (data: Buffer) => {
    await writePart(partCount, data);
    partCount += 1;
  };
  for await (const chunk of source) {
    sizeBytes += chunk.length;
    if (sizeBytes > maxBytes) {
      throw new FileTooLargeError(maxBytes);
    }
    pending.push(chunk);
    pendingBytes += chunk.length;
    while (pendingBytes >= FILE_PART_BYTES) {
      const all = Buffer.concat(pending, pendingBytes);
      await flush(all.subarray(0, FILE_PART_BYTES));
      const rest = all.subarray(FILE_PART_BYTES);
      pending = rest.length > 0 ? [Buffer.from(rest)] : [];
      pendingBytes = rest.length;
    }
  }
  if (pendingBytes > 0) await flush(Buffer.concat(pending, pendingBytes));
  return { sizeBytes, partCount };
}

/**
 * How much of a part one query reads, in bytes: node-postgres receives `bytea` as hex text, so
 * a whole part arrives as a 2 MiB string in V8's large-object space, which the main thread's
 * old generation only frees at its next full collection; 48 KiB slices (96 KiB of hex) stay
 * young and die young.
 */
export const READ_SLICE_BYTES = 48 * 1024;

/**
 * A stored file as a stream, read a slice of a part at a time (one `readSlice` each) as the
 * consumer asks: at most a slice or two in memory.
 * @param readSlice reads at most {@link READ_SLICE_BYTES} of part `part` from byte `offset`
 *   (1-based, as SQL's `substring`): empty past the part's end, null when the part is missing.
 * @param importId the import whose file it is, for the error message.
 * @param partCount the file's number of parts.
 * @returns a byte stream (not object mode) that errors when a part is missing.
 */
export function readFileParts(
  readSlice: (part: number, offset: number) => Promise<Buffer | null>,
  importId: string,
  partCount: number,
): Readable {
  async function* parts(): AsyncGenerator<Buffer> {
    for (let part = 0; part < partCount; part++) {
      for (let offset = 1; ; offset += READ_SLICE_BYTES) {
        const data = await readSlice(part, offset);
        if (data === null)
          throw new Error(`part ${part} of spreadsheet import ${importId} is missing`);
        if (data.length > 0) yield data;
        if (data.length < READ_SLICE_BYTES) break;
      }
    }
  }
  return Readable.from(parts(), { objectMode: false, highWaterMark: 1 });
}
