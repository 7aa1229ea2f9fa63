import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { InvalidInputError } from '../../common/domain-error';

/** An upload over the size limit: the HTTP edge answers it with 413. */
export class FileTooLargeError extends InvalidInputError {
  constructor(readonly maxBytes: number) {
    super(`file is larger than ${Math.floor(maxBytes / (1024 * 1024))} MiB`, 'file');
  }
}

/** The folder under the system's temporary directory where processes keep spreadsheet files. */
const ROOT = join(tmpdir(), 'campaign-api-spreadsheets');

/** Whether a process with this id runs on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The local files of spreadsheet uploads and imports (docs/security.md#spreadsheet-uploads):
 * an upload as it arrives, a stored file copied out of PostgreSQL to be imported, and the
 * spill directory of a parse thread. Each process has its own directory
 * (`<tmp>/campaign-api-spreadsheets/<pid>-<random>`); every file is removed by whoever made it
 * on every path, this process's directory when it stops, and the directories of processes that
 * died (their pid no longer running) when another starts.
 */
@Injectable()
export class SpreadsheetTempFiles implements OnModuleDestroy {
  private readonly logger = new Logger(SpreadsheetTempFiles.name);
  /** This process's directory. */
  readonly dir = join(ROOT, `${process.pid}-${randomUUID().slice(0, 8)}`);
  private prepared: Promise<void> | null = null;

  /** Makes this process's directory, once, after removing those of processes that died. */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await mkdir(ROOT, { recursive: true, mode: 0o700 });
      for (const name of await readdir(ROOT)) {
        const pid = Number(name.split('-')[0]);
        if (Number.isSafeInteger(pid) && pid > 0 && !alive(pid)) {
          this.logger.log(`Removing the spreadsheet files of stopped process ${pid}`);
          await rm(join(ROOT, name), { recursive: true, force: true });
        }
      }
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
    })();
    return this.prepared;
  }

  /** A new empty directory of this process's (the caller removes it with {@link remove}). */
  async makeDir(purpose: string): Promise<string> {
    await this.prepare();
    const dir = join(this.dir, `${purpose}-${randomUUID()}`);
    await mkdir(dir, { mode: 0o700 });
    return dir;
  }

  /** A new file name in this process's directory (the caller removes it with {@link remove}). */
  async makePath(purpose: string): Promise<string> {
    await this.prepare();
    return join(this.dir, `${purpose}-${randomUUID()}`);
  }

  /**
   * Writes a stream to a new file, with backpressure, refusing it as soon as more than
   * `maxBytes` arrived. The file is removed when this throws.
   * @returns the file's path and size in bytes.
   * @throws FileTooLargeError past `maxBytes`; the stream's own error when it fails.
   */
  async receive(
    source: AsyncIterable<Buffer>,
    maxBytes: number,
    purpose = 'upload',
  ): Promise<{ path: string; sizeBytes: number }> {
    const path = await this.makePath(purpose);
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    // Destroying the stream while a write is still in flight (the client went away, or sent
    // too much) makes it emit `ERR_STREAM_DESTROYED` once that write completes, after the
    // loop below stopped listening: an error event nobody listens to would end the process.
    // Errors that matter still reach us through `once(out, 'drain')` and `finished(out)`.
    out.on('error', () => undefined);
    let sizeBytes = 0;
    try {
      for await (const chunk of source) {
        sizeBytes += chunk.length;
        if (sizeBytes > maxBytes) throw new FileTooLargeError(maxBytes);
        // `once` rejects on the stream's error and removes its listeners either way.
        if (!out.write(chunk)) await once(out, 'drain');
      }
      out.end();
      await finished(out);
      return { path, sizeBytes };
    } catch (error) {
      // The file is removed once its descriptor is closed (after any write in flight).
      if (!out.closed)
        await new Promise<void>((resolve) => out.destroy().once('close', () => resolve()));
      await this.remove(path);
      throw error;
    }
  }

  /** Removes a file or directory made here; never throws. */
  async remove(path: string): Promise<void> {
    await rm(path, { recursive: true, force: true }).catch((error: Error) =>
      this.logger.warn(`Could not remove ${path}: ${error.message}`),
    );
  }

  /** Removes this process's directory (whatever a crash left in it). */
  onModuleDestroy(): void {
    if (this.prepared === null) return;
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // Nothing to do: the next process to start removes it.
    }
  }
}

/** Makes sure the root directory exists (tests check it is left empty). */
export function spreadsheetTempRoot(): string {
  mkdirSync(ROOT, { recursive: true, mode: 0o700 });
  return ROOT;
}
