import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { CountryCode } from 'libphonenumber-js/max';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Piscina } from 'piscina';
import { checkLeads, screenBatch, settleScreenedBatch, type ScreenedBatch } from './lead-batch';
import type { ScreeningTask } from './lead-screening.worker';
import type { LeadCheck } from './lead-validator';
import { packLeads, unpackChecks } from './lead-transfer';

/** Batches smaller than this are checked in the calling thread: a hand-off costs more. */
export const MIN_LEADS_FOR_WORKERS = 1_000;
/** Most worker threads, whatever the machine (the calling thread checks a slice too). */
const MAX_WORKER_THREADS = 4;
/** Each worker thread's heap limits, in MiB (its old and young generations). */
const WORKER_OLD_GENERATION_MB = 32;
const WORKER_YOUNG_GENERATION_MB = 4;

/**
 * The compiled worker file: beside this file in dist/; when this file runs as TypeScript
 * (the tests), the one the build put in dist/ (the e2e setup builds it), if any.
 */
function workerFile(): string | null {
  const file = __filename.endsWith('.ts')
    ? resolve(__dirname, '../../../dist/leads/upload/lead-screening.worker.js')
    : join(__dirname, 'lead-screening.worker.js');
  return existsSync(file) ? file : null;
}

/** A few leads of every kind, to load the workers' modules and warm their code at start. */
function warmUpLeads(): Record<string, unknown>[] {
  return Array.from({ length: 200 }, (_, i) => ({
    phone: i % 10 === 0 ? '12345' : `+1212${2_000_000 + i}`,
    first_name: 'Ada',
    last_name: i % 7 === 0 ? null : 'Lovelace',
    email: i % 5 === 0 ? 'not an email' : `ada${i}@example.com`,
    company: 'Analytical Engines Ltd',
    title: 'CTO',
  }));
}

/**
 * Screens an upload's leads ({@link screenBatch}, docs/api.md#per-lead-validation) with the
 * per-lead checks spread over worker threads when the batch is large
 * (docs/architecture.md#lead-validation-cost). The batch is cut into contiguous slices, one per
 * worker plus one for the calling thread; the verdicts, concatenated in row order, are settled
 * in the calling thread, so the outcome is the same as {@link screenBatch}'s, byte for byte.
 * Small batches, a machine with one core, or a build without the worker file use the calling
 * thread only. Only the six lead fields are sent to a worker, and verdicts come back, in the
 * flat forms of `lead-transfer.ts`. A slice whose worker fails (a crashed thread) is checked in
 * the calling thread.
 */
@Injectable()
export class LeadScreener implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(LeadScreener.name);
  private pool: Piscina<ScreeningTask, unknown[]> | null = null;

  /** Starts the worker threads (their count: the machine's cores − 1, at most 4) and warms them. */
  onModuleInit(): void {
    const threads = Math.min(MAX_WORKER_THREADS, availableParallelism() - 1);
    const filename = workerFile();
    if (threads < 1 || filename === null) return;
    this.pool = new Piscina<ScreeningTask, unknown[]>({
      filename,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      // A slice of even the largest upload needs a few MiB: a small heap makes V8 collect early
      // instead of growing the thread's heap batch after batch (a long spreadsheet import grew
      // it by ~100 MiB). A thread that still runs out is replaced, its slice checked here.
      resourceLimits: {
        maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB,
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
      },
    });
    for (let i = 0; i < threads; i++) {
      this.pool.run({ leads: packLeads(warmUpLeads()), region: 'US' }).catch(() => undefined);
    }
  }

  /** Stops the worker threads. */
  async onModuleDestroy(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.destroy();
  }

  /** Whether large batches are checked in worker threads. */
  get usesWorkers(): boolean {
    return this.pool !== null;
  }

  /**
   * @param leads the request's `leads` (each a JSON object).
   * @param region the campaign's region for phones without `+`.
   * @param skipDuplicates the request's `skip_duplicates`.
   * @returns the same {@link ScreenedBatch} as `screenBatch(leads, region, skipDuplicates)`.
   */
  async screen(
    leads: Record<string, unknown>[],
    region: CountryCode,
    skipDuplicates: boolean,
  ): Promise<ScreenedBatch> {
    const pool = this.pool;
    if (pool === null || leads.length < MIN_LEADS_FOR_WORKERS) {
      return screenBatch(leads, region, skipDuplicates);
    }
    const slices = pool.options.maxThreads + 1;
    const size = Math.ceil(leads.length / slices);
    const handedOff: Array<Promise<LeadCheck[]>> = [];
    for (let start = 0; start + size < leads.length; start += size) {
      const slice = leads.slice(start, start + size);
      handedOff.push(
        pool.run({ leads: packLeads(slice), region }).then(unpackChecks, (error: unknown) => {
          this.logger.warn(
            `a lead screening worker failed, checking its slice here: ${String(error)}`,
          );
          return checkLeads(slice, region);
        }),
      );
    }
    const own = checkLeads(leads.slice(handedOff.length * size), region);
    const checks = (await Promise.all(handedOff)).flat().concat(own);
    return settleScreenedBatch(checks, skipDuplicates);
  }
}
