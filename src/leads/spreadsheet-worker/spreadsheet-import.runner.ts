import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { CampaignNotFoundError, CampaignsService } from '../../campaigns';
import { DomainError } from '../../common/domain-error';
import { ownedByOperator } from '../../common/owned-id';
import { PeriodicJob } from '../../common/periodic-job';
import { Metrics } from '../../metrics';
import { IMPORT_PARSE_BUDGET, SpreadsheetImports, type ClaimedImport } from '../spreadsheet';
import { LeadImportService, type LeadUploadResponse } from '../upload';

/** The most leads in one chunk (one `lead_import`, one transaction). */
export const SPREADSHEET_CHUNK_SIZE = 10_000;
/** How often each worker looks for an import to run, in ms. */
export const SPREADSHEET_POLL_MS = 1_000;
/**
 * How long a worker's lease on an import lasts without a committed chunk, in ms: an import
 * whose worker died is taken up by another this long after its last chunk.
 */
export const SPREADSHEET_LEASE_MS = 60_000;

/** The import is no longer this worker's: cancelled, finished, or taken by another worker. */
class LeaseLost extends Error {}

/**
 * Runs spreadsheet imports in the worker (docs/dashboard.md#spreadsheet-imports). Every
 * {@link SPREADSHEET_POLL_MS} a worker with no import under way takes the oldest `running`
 * import whose lease is free or ran out (`FOR UPDATE SKIP LOCKED`: one worker per import),
 * copies its file from the stored parts to a local file that a parse thread reads within the
 * reading bounds (docs/security.md#spreadsheet-uploads), skips the rows committed before, and
 * imports the rest in chunks of {@link SPREADSHEET_CHUNK_SIZE} through `LeadImportService`:
 * each chunk is a `lead_import` committed together with the import's progress and a renewed
 * lease, so a chunk is never imported twice (the unique chunk index, and the progress update
 * that must find the import still `running`, still this worker's, at this chunk) and an import
 * interrupted by a restart resumes at its next chunk. A cancelled import stops at its next
 * chunk, which is rolled back.
 */
@Injectable()
export class SpreadsheetImportRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SpreadsheetImportRunner.name);
  /** This process's lease owner name. */
  readonly owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly job: PeriodicJob<void>;
  private lastCleanup = 0;

  constructor(
    private readonly spreadsheets: SpreadsheetImports,
    private readonly imports: LeadImportService,
    private readonly campaigns: CampaignsService,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.job = new PeriodicJob({
      name: 'Spreadsheet import poll',
      intervalMs: SPREADSHEET_POLL_MS,
      logger: this.logger,
      tick: () => this.poll(),
    });
  }

  /** Starts polling. */
  onApplicationBootstrap(): void {
    this.job.start();
  }

  /**
   * Stops polling; an import under way stops after its current chunk commits and its lease is
   * released, so the next worker resumes it at once.
   */
  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /**
   * Runs the next ready import to its end, if any and none runs here. Never throws.
   * @returns when that run ended.
   */
  poll(): Promise<void> {
    return this.job.run(
      () => this.pollNow(),
      () => undefined,
    );
  }

  private async pollNow(): Promise<void> {
    await this.cleanUp();
    const job = await this.claim();
    if (job) await this.run(job);
  }

  /**
   * Deletes uploads never started within `SPREADSHEET_UPLOAD_TTL`, with their stored files, once
   * a minute at most (docs/dashboard.md#abandoned-uploads).
   */
  private async cleanUp(): Promise<void> {
    if (Date.now() - this.lastCleanup < 60_000) return;
    this.lastCleanup = Date.now();
    const discarded = await this.spreadsheets.discardAbandoned();
    if (discarded > 0)
      this.logger.log(`Discarded ${discarded} spreadsheet upload(s) never started`);
  }

  /** Takes the oldest running import whose lease is free or ran out, leasing it to this worker. */
  private claim(): Promise<ClaimedImport | null> {
    return this.spreadsheets.claim(this.owner, SPREADSHEET_LEASE_MS);
  }

  private async run(job: ClaimedImport): Promise<void> {
    const started = Date.now();
    this.logger.log(
      `Spreadsheet import ${job.id}: ${job.rows_read > 0 ? `resuming after row ${job.rows_read}` : 'starting'}`,
    );
    try {
      // The service's own job: the import's campaign is read as it is, no account to check.
      const campaign = await this.campaigns
        .scopeOf(ownedByOperator('campaign', job.campaign_id))
        .catch((error: unknown) => {
          throw error instanceof CampaignNotFoundError ? new LeaseLost() : error;
        });
      let chunkIndex = job.next_chunk;
      let leads: Record<string, unknown>[] = [];
      let rowNumbers: number[] = [];
      const commit = async () => {
        await this.importChunk(job, campaign, chunkIndex, leads, rowNumbers);
        chunkIndex += 1;
        leads = [];
        rowNumbers = [];
      };
      // The stored file is copied to a local file, read by a parse thread within the reading
      // bounds; the rows committed before are skipped there.
      const copy = await this.spreadsheets.copyStoredFile(job);
      try {
        const batches = this.spreadsheets.readLeads(
          copy.path,
          job.format,
          job.mapping,
          job.rows_read,
          {
            budget: IMPORT_PARSE_BUDGET,
          },
        );
        for await (const batch of batches) {
          for (let i = 0; i < batch.leads.length; i++) {
            leads.push(batch.leads[i]);
            rowNumbers.push(batch.rowNumbers[i]);
            if (leads.length === SPREADSHEET_CHUNK_SIZE) {
              await commit();
              if (this.job.stopped) {
                await this.release(job.id);
                return;
              }
            }
          }
        }
      } finally {
        await this.spreadsheets.removeLocalFile(copy.path);
      }
      if (leads.length > 0) await commit();
      await this.finish(job.id, 'done', null);
      this.logger.log(`Spreadsheet import ${job.id} done in ${Date.now() - started} ms`);
    } catch (error) {
      if (error instanceof LeaseLost) {
        this.logger.log(
          `Spreadsheet import ${job.id} stopped: cancelled, or taken by another worker`,
        );
      } else if (error instanceof DomainError) {
        // The file or the campaign cannot go on: the import fails, its committed chunks stay.
        await this.finish(job.id, 'failed', error.message.slice(0, 500));
        this.logger.warn(`Spreadsheet import ${job.id} failed: ${error.message}`);
      } else {
        // A fault of the moment (the database, say): the lease runs out and a worker resumes it.
        this.logger.warn(`Spreadsheet import ${job.id} interrupted: ${(error as Error).message}`);
      }
    }
  }

  /**
   * One chunk, committed with the import's progress and lease.
   * @throws LeaseLost when the import is no longer this worker's at this chunk (rolled back).
   */
  private async importChunk(
    job: ClaimedImport,
    campaign: Awaited<ReturnType<CampaignsService['scopeOf']>>,
    chunkIndex: number,
    leads: Record<string, unknown>[],
    rowNumbers: number[],
  ): Promise<void> {
    const advance = async (manager: EntityManager, response: LeadUploadResponse) => {
      const advanced = await this.spreadsheets.advance(
        manager,
        job.id,
        this.owner,
        {
          chunkIndex,
          rows: leads.length,
          valid: response.valid_count,
          invalid: response.invalid_count,
          duplicates: response.duplicate_count,
        },
        SPREADSHEET_LEASE_MS,
      );
      if (!advanced) throw new LeaseLost();
    };
    try {
      await this.imports.importSpreadsheetChunk(
        {
          spreadsheetImportId: job.id,
          chunkIndex,
          campaign,
          userId: job.user_id,
          leads,
          rowNumbers,
          source: job.source,
          tags: job.tags,
          skipDuplicates: job.skip_duplicates,
          disclaimerVersion: job.disclaimer_version,
          complianceAcknowledgedAt: job.compliance_acknowledged_at,
          clientIp: job.client_ip,
        },
        advance,
      );
      this.metrics?.recordSpreadsheetRows(leads.length);
    } catch (error) {
      const code = (error as { driverError?: { constraint?: string } }).driverError?.constraint;
      if (code === 'uq_lead_import_spreadsheet_chunk') throw new LeaseLost();
      throw error;
    }
  }

  /** Lets another worker take the import now (this one stops). */
  private async release(id: string): Promise<void> {
    await this.spreadsheets.releaseLease(id, this.owner);
  }

  /** Ends the import (if still this worker's and running) and deletes its stored file. */
  private async finish(id: string, status: 'done' | 'failed', error: string | null): Promise<void> {
    await this.spreadsheets.finish(id, this.owner, status, error);
  }
}
