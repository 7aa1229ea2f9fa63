import { Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { CountryCode } from 'libphonenumber-js/max';
import type { EntityManager } from 'typeorm';
import type { CampaignScope } from '../../campaigns';
import { WebhookEventPublisher, type RecordedEvents } from '../../delivery/outbox';
import { IdempotencyService } from '../../idempotency';
import { Metrics, type LeadSource } from '../../metrics';
import type { LeadUploadRequest, LeadUploadResponse } from '..';
import {
  DUPLICATE_MESSAGE,
  importCounts,
  settleCampaignDuplicates,
  settleSuppressed,
  SUPPRESSED_MESSAGE,
  uploadResponse,
  type ScreenedBatch,
} from './lead-batch';
import { leadEvents } from './lead-events';
import { normalizePhone } from './lead-validator';
import { LeadScreener } from './lead-screener.service';
import { LeadImports, rejectionsOf, type NewLeadImport } from '../history';
import { SuppressionList } from '../suppression';
import { LeadsRepository, type ImportContext } from './leads.repository';
import { retryOnTransactionConflict } from './transaction-retry';

/** Everything one run of an import's transaction needs, fixed before the first run. */
interface ImportPlan {
  context: ImportContext;
  /** The campaign's region for phones written without `+`. */
  region: CountryCode;
  batch: ScreenedBatch;
  /** The `lead_import` row as inserted, before campaign duplicates are known. */
  record: NewLeadImport;
  skipDuplicates: boolean;
  /** The upload's leads as submitted: rejected rows are stored with their fields. */
  leads: readonly unknown[];
  /** Each lead's row number as stored with a rejection (default: its index in `leads`). */
  rowNumbers?: readonly number[];
  /** A claimed `Idempotency-Key` (of `apiKeyId`) whose response is stored in the transaction. */
  idempotency?: { apiKeyId: number; key: string };
  /** More work in the import's transaction, after its writes (its error rolls them back). */
  alsoInTransaction?: (manager: EntityManager, response: LeadUploadResponse) => Promise<void>;
}

/**
 * Who uploads through the public API, as the lead import records it: the caller maps its
 * authenticated principal (an API key) to this, so the import knows nothing of authentication.
 */
export interface LeadUploader {
  /** The uploading API key's id: recorded on the import, and the idempotency key's owner. */
  apiKeyId: number;
}

/**
 * One chunk of a spreadsheet import (docs/dashboard.md#spreadsheet-imports), imported as a
 * `lead_import` of its own uploaded by a dashboard user.
 */
export interface SpreadsheetChunk {
  spreadsheetImportId: string;
  chunkIndex: number;
  campaign: CampaignScope;
  userId: number;
  /** The chunk's leads, as the column mapping made them from its rows. */
  leads: Record<string, unknown>[];
  /** Each lead's row number in the file (the header is row 1). */
  rowNumbers: number[];
  source: string;
  tags: string[];
  skipDuplicates: boolean;
  disclaimerVersion: string;
  complianceAcknowledgedAt: Date;
  clientIp: string | null;
}

/**
 * Imports a batch of leads into a campaign (docs/api.md#lead-upload,
 * docs/api.md#per-lead-validation, docs/api.md#duplicates-and-counts): screens the batch
 * (`LeadScreener`, in worker threads for large batches), then writes the import record, the leads and their outbox events in
 * one transaction, run again on a deadlock or serialization failure
 * (docs/decisions.md#uploads).
 */
@Injectable()
export class LeadImportService {
  constructor(
    private readonly leads: LeadsRepository,
    private readonly imports: LeadImports,
    private readonly events: WebhookEventPublisher,
    private readonly idempotency: IdempotencyService,
    private readonly screener: LeadScreener,
    private readonly suppression: SuppressionList,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /**
   * @param request the upload after envelope validation.
   * @param campaign the campaign authorised for the caller.
   * @param uploader the caller (its API key is recorded on the import).
   * @param clientIp the client's address as Fastify sees it (see `TRUST_PROXY`).
   * @param idempotencyKey a claimed `Idempotency-Key`: its response is stored in the same transaction.
   * @returns the 202 body; `errors` is sorted by row.
   * @throws CampaignNotFoundError when the campaign was deleted meanwhile (nothing is written);
   *   database errors (the transaction is rolled back: nothing of the upload is written).
   */
  async importLeads(
    request: LeadUploadRequest,
    campaign: CampaignScope,
    uploader: LeadUploader,
    clientIp: string | null,
    idempotencyKey?: string,
  ): Promise<LeadUploadResponse> {
    const acknowledgedAt = new Date();
    const batch = await this.withoutSuppressed(
      campaign.accountId,
      await this.screener.screen(request.leads, campaign.defaultRegion, request.skip_duplicates),
    );
    const context: ImportContext = {
      importId: randomUUID(),
      campaignId: campaign.id,
      source: request.source,
      tags: request.tags,
    };
    const plan: ImportPlan = {
      context,
      region: campaign.defaultRegion,
      batch,
      record: {
        id: context.importId,
        campaignId: campaign.id,
        apiKeyId: uploader.apiKeyId,
        source: request.source,
        tags: request.tags,
        disclaimerVersion: request.disclaimer_version,
        complianceAcknowledgedAt: acknowledgedAt,
        clientIp,
        receivedCount: request.leads.length,
        ...importCounts(request.leads.length, batch),
      },
      skipDuplicates: request.skip_duplicates,
      leads: request.leads,
      idempotency:
        idempotencyKey === undefined
          ? undefined
          : { apiKeyId: uploader.apiKeyId, key: idempotencyKey },
    };
    return this.run(plan);
  }

  /**
   * Imports one chunk of a spreadsheet import: the same screening and transaction as an upload,
   * its `lead_import` naming the job, the chunk and the user, its rejected rows numbered by file
   * row. `alsoInTransaction` commits the job's progress with the chunk, or throws to roll the
   * chunk back (the job was cancelled, or another worker took it).
   * @returns the chunk's 202-like outcome (`import_id`, counts, `errors` by file row).
   * @throws as {@link importLeads}; a unique violation of `uq_lead_import_spreadsheet_chunk`
   *   when the chunk was imported already (nothing is written twice).
   */
  async importSpreadsheetChunk(
    chunk: SpreadsheetChunk,
    alsoInTransaction: (manager: EntityManager, response: LeadUploadResponse) => Promise<void>,
  ): Promise<LeadUploadResponse> {
    const batch = await this.withoutSuppressed(
      chunk.campaign.accountId,
      await this.screener.screen(chunk.leads, chunk.campaign.defaultRegion, chunk.skipDuplicates),
    );
    const context: ImportContext = {
      importId: randomUUID(),
      campaignId: chunk.campaign.id,
      source: chunk.source,
      tags: chunk.tags,
    };
    return this.run({
      context,
      region: chunk.campaign.defaultRegion,
      batch,
      record: {
        id: context.importId,
        campaignId: chunk.campaign.id,
        apiKeyId: null,
        userId: chunk.userId,
        spreadsheetImportId: chunk.spreadsheetImportId,
        chunkIndex: chunk.chunkIndex,
        firstRow: chunk.rowNumbers[0] ?? null,
        source: chunk.source,
        tags: chunk.tags,
        disclaimerVersion: chunk.disclaimerVersion,
        complianceAcknowledgedAt: chunk.complianceAcknowledgedAt,
        clientIp: chunk.clientIp,
        receivedCount: chunk.leads.length,
        ...importCounts(chunk.leads.length, batch),
      },
      skipDuplicates: chunk.skipDuplicates,
      leads: chunk.leads,
      rowNumbers: chunk.rowNumbers,
      alsoInTransaction,
    });
  }

  /**
   * Deletes a person's leads in `campaignIds` in the caller's transaction (an erasure,
   * docs/privacy.md#erasure).
   * @param phone an E.164 phone, or null; @param email a lower-cased email, or null.
   * @returns the deleted leads' ids and the ids of the imports they came from.
   */
  async erasePerson(
    manager: EntityManager,
    campaignIds: number[],
    phone: string | null,
    email: string | null,
  ): Promise<{ leadIds: number[]; importIds: string[] }> {
    const rows = await this.leads.deletePerson(manager, campaignIds, phone, email);
    return {
      leadIds: rows.map((r) => r.id),
      importIds: [...new Set(rows.map((r) => r.importId))],
    };
  }

  /**
   * Refuses the screened leads whose phone or email is on the account's suppression list
   * (docs/privacy.md#suppression-list): rejected rows like the others, with
   * {@link SUPPRESSED_MESSAGE}. One indexed query per batch, none when the list is empty.
   */
  private async withoutSuppressed(accountId: number, batch: ScreenedBatch): Promise<ScreenedBatch> {
    const verdicts = await this.suppression.matches(
      accountId,
      batch.accepted.map((a) => ({ phone: a.lead.phone, email: a.lead.email })),
    );
    return settleSuppressed(batch, verdicts);
  }

  /** Writes a planned import in one transaction (run again on a conflict), then dispatches its events. */
  private async run(plan: ImportPlan): Promise<LeadUploadResponse> {
    const { context } = plan;
    const { response, recorded } = await retryOnTransactionConflict(() =>
      this.leads.inImportTransaction(context.campaignId, (manager) =>
        this.writeImport(manager, plan),
      ),
    );
    // After the commit; never awaited by the caller's response and never throws.
    void this.events.dispatch(recorded);
    const source: LeadSource = plan.rowNumbers ? 'spreadsheet' : 'api';
    this.metrics?.recordLeads(source, response);
    return response;
  }

  /**
   * One run of an import's transaction: the `lead_import` record, the leads (a phone the
   * campaign already has is skipped by the insert, then settled as a duplicate and the
   * record's counts corrected), the outbox events, and the stored idempotent response.
   */
  private async writeImport(
    manager: EntityManager,
    plan: ImportPlan,
  ): Promise<{ response: LeadUploadResponse; recorded: RecordedEvents }> {
    const { context, batch, record } = plan;
    await this.imports.record(manager, record);
    const inserted = await this.leads.insertIgnoringDuplicates(
      manager,
      context,
      batch.accepted.map((a) => a.lead),
    );

    let outcome = { errors: [...batch.errors], duplicates: batch.duplicates };
    if (!inserted.all) {
      outcome = settleCampaignDuplicates(batch, inserted.phones, plan.skipDuplicates);
      await this.imports.correctCounts(
        manager,
        context.importId,
        importCounts(record.receivedCount, outcome),
      );
    }

    const rejections = rejectionsOf(outcome.errors, plan.leads);
    // A suppressed person's rows are refused without keeping what was submitted, their
    // in-batch duplicates included (docs/privacy.md#suppression-list).
    const suppressed = batch.suppressedPhones;
    if (suppressed !== undefined && suppressed.size > 0) {
      for (const r of rejections) {
        const phone = r.submitted.phone;
        if (
          r.message === SUPPRESSED_MESSAGE ||
          (r.message === DUPLICATE_MESSAGE &&
            typeof phone === 'string' &&
            suppressed.has(normalizePhone(phone.trim(), plan.region) ?? ''))
        ) {
          r.submitted = {};
        }
      }
    }
    if (plan.rowNumbers) for (const r of rejections) r.row = plan.rowNumbers[r.row];
    await this.imports.recordRejections(manager, context.importId, rejections);

    const subscribed =
      inserted.count > 0
        ? await this.events.subscribedTypes(manager, context.campaignId)
        : new Set<string>();
    // The created leads' ids are needed only for events somebody will receive.
    const created = subscribed.size > 0 ? await inserted.read() : [];
    const recorded = await this.events.record(
      manager,
      context.campaignId,
      leadEvents(context, batch.accepted, created, subscribed),
    );

    const response = uploadResponse(context.importId, record.receivedCount, outcome);
    if (plan.idempotency !== undefined) {
      const { apiKeyId, key } = plan.idempotency;
      await this.idempotency.complete(manager, apiKeyId, key, 202, response);
    }
    await plan.alsoInTransaction?.(manager, response);
    return { response, recorded };
  }
}
