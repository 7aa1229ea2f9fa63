import { readdirSync } from 'node:fs';
import { FileTooLargeError, SpreadsheetTempFiles } from './spreadsheet-temp-files.service';

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A request body arriving in `chunks`, a moment apart (the file is open by the last one). */
async function* body(chunks: Buffer[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) {
    await pause();
    yield chunk;
  }
}

/** A body that sends `chunks` and then fails at once, as a client that went away does. */
async function* cutOff(chunks: Buffer[], error: Error): AsyncGenerator<Buffer> {
  yield* body(chunks);
  throw error;
}

describe('SpreadsheetTempFiles.receive (docs/security.md#spreadsheet-uploads)', () => {
  const files = new SpreadsheetTempFiles();
  const uncaught: Error[] = [];
  const record = (error: Error) => uncaught.push(error);

  beforeAll(() => process.on('uncaughtExceptionMonitor', record));
  afterAll(() => {
    process.off('uncaughtExceptionMonitor', record);
    files.onModuleDestroy();
  });

  it('stores what arrived and reports its size', async () => {
    const received = await files.receive(body([Buffer.from('phone\n')]), 10);
    expect(received.sizeBytes).toBe(6);
    expect(readdirSync(files.dir)).toHaveLength(1);
    await files.remove(received.path);
  });

  it('survives a client that goes away while a write is still in flight, leaving no file', async () => {
    const gone = new Error('aborted');
    for (let i = 0; i < 20; i++) {
      // Each small chunk starts a file write at once; the failure comes before it completes.
      await expect(
        files.receive(cutOff([Buffer.alloc(1024, 1), Buffer.alloc(1024, 2)], gone), 1 << 20),
      ).rejects.toBe(gone);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uncaught).toEqual([]);
    expect(readdirSync(files.dir)).toEqual([]);
  });

  it('refuses a file past its limit while writes are in flight, leaving no file', async () => {
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(1024, 1));
    for (let i = 0; i < 20; i++) {
      await expect(files.receive(body(chunks), 4 * 1024 + 1)).rejects.toBeInstanceOf(
        FileTooLargeError,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uncaught).toEqual([]);
    expect(readdirSync(files.dir)).toEqual([]);
  });
});
