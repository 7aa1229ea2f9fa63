import { Readable } from 'node:stream';
import type { EntityManager } from 'typeorm';
import { FileTooLargeError } from './spreadsheet-temp-files';

/** The size of a stored part of an uploaded file, in bytes (the last part may be shorter). */
export const FILE_PART_BYTES = 1024 * 1024;

/**
 * Stores a received upload (a local file's stream) in `spreadsheet_import_file_part`, in parts
 * of {@link FILE_PART_BYTES} (docs/dashboard.md#spreadsheet-imports): at most one part is held
 * in memory, whatever the file's size.
 * @param manager the upload's transaction (the import's row is inserted first).
 * @param maxBytes the largest file taken.
 * @returns the file's size and its number of parts.
 * @throws FileTooLargeError as soon as more than `maxBytes` arrived (the caller rolls back).
 */
export async function storeFileParts(
  manager: EntityManager,
  importId: string,
  source: AsyncIterable<Buffer>,
  maxBytes: number,
): Promise<{ sizeBytes: number; partCount: number }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let sizeBytes = 0;
  let partCount = 0;
  const flush = async (data: Buffer) => {
    await manager.query(
      'INSERT INTO spreadsheet_import_file_part (import_id, part, data) VALUES ($1, $2, $3)',
      [importId, partCount, data],
    );
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
const READ_SLICE_BYTES = 48 * 1024;

/**
 * A stored file as a stream, read a slice of a part at a time (one query each) as the consumer
 * asks: at most a slice or two in memory.
 * @param query runs one SQL statement (a transaction's manager, or the data source).
 */
export function readFileParts(
  query: Pick<EntityManager, 'query'>,
  importId: string,
  partCount: number,
): Readable {
  async function* parts(): AsyncGenerator<Buffer> {
    for (let part = 0; part < partCount; part++) {
      for (let offset = 1; ; offset += READ_SLICE_BYTES) {
        const [row]: Array<{ data: Buffer }> = await query.query(
          `SELECT substring(data FROM $3 FOR ${READ_SLICE_BYTES}) AS data
             FROM spreadsheet_import_file_part WHERE import_id = $1 AND part = $2`,
          [importId, part, offset],
        );
        if (!row) throw new Error(`part ${part} of spreadsheet import ${importId} is missing`);
        if (row.data.length > 0) yield row.data;
        if (row.data.length < READ_SLICE_BYTES) break;
      }
    }
  }
  return Readable.from(parts(), { objectMode: false, highWaterMark: 1 });
}
