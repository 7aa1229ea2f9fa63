import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditLog } from '../audit';
import { CampaignsService } from '../campaigns';
import { InvalidInputError, NotFoundError } from '../common/domain-error';
import { parsePageLimit } from '../common/page-limit';
import { Deliveries } from '../delivery/deliveries';
import { DeliveryService } from '../delivery/attempts';
import { IdempotencyService } from '../idempotency';
import { LeadImports } from '../leads/history';
import { SpreadsheetImports } from '../leads/spreadsheet';
import { SuppressionList } from '../leads/suppression';
import { LeadImportService } from '../leads/upload';
import type { ErasureCounts } from './erasure-receipt.entity';
import { ErasureRepository, type ErasureReceiptRow } from './erasure.repository';
import {
  nationalDigits,
  parsePerson,
  parseRegion,
  phoneDigitForms,
  type PersonInput,
} from './person';
import { auditPrivacyChange, requesterOf, type PrivacyActor } from './privacy-actor';

/** What a caller asks to erase (docs/privacy.md#erasure); every field is checked. */
export interface ErasureInput extends PersonInput {
  /** The campaign to erase in (its region reads a phone without `+`), or absent: the account. */
  campaignId?: number | null;
  /** The region for a phone without `+` when no campaign is named (ISO 3166-1 alpha-2). */
  region?: unknown;
  /** Whether to add the person to the account's suppression list (default true). */
  suppress?: unknown;
}

/** A receipt as every edge shows it (docs/privacy.md#erasure-receipts). */
export interface ErasureReceiptView {
  id: string;
  campaign_id: number | null;
  created_at: string;
  requested_by: string;
  suppressed: boolean;
  /** The keyed hashes (hex) of the person's phone and email; null when not given. */
  phone_hash: string | null;
  email_hash: string | null;
  key_id: number;
  counts: ErasureCounts;
}

/** Default and largest number of receipts one list gives. */
export const ERASURE_LIST_DEFAULT = 50;
export const ERASURE_LIST_MAX = 200;

/**
 * Erases a person (docs/privacy.md#erasure): in one transaction, through each owning module's
 * service, their leads, rejected import rows, the spreadsheet files and samples that may hold
 * them, their events' bodies, their deliveries not sent yet (cancelled: `skipped`, reason
 * `erased`), their attempts' stored requests and answers and the idempotency records of their
 * uploads; adds them to the suppression list unless asked not to; writes a receipt with the
 * counts and an audit entry, neither holding the phone or the email.
 */
@Injectable()
export class ErasureService {
  constructor(
    private readonly repository: ErasureRepository,
    private readonly campaigns: CampaignsService,
    private readonly leads: LeadImportService,
    private readonly imports: LeadImports,
    private readonly spreadsheets: SpreadsheetImports,
    private readonly deliveries: Deliveries,
    private readonly attempts: DeliveryService,
    private readonly idempotency: IdempotencyService,
    private readonly suppression: SuppressionList,
    private readonly audit: AuditLog,
  ) {}

  /**
   * @param accountId the account whose data is erased (the caller's, checked by its edge).
   * @returns the receipt.
   * @throws InvalidInputError (field `phone`, `email`, `region` or `suppress`) for bad input,
   *   before anything is written; NotFoundError when the campaign is not the account's or the
   *   account does not exist; database errors (the transaction is rolled back: nothing is
   *   erased).
   */
  async erase(
    accountId: number,
    input: ErasureInput,
    actor: PrivacyActor,
  ): Promise<ErasureReceiptView> {
    const campaignId = input.campaignId ?? null;
    const scope =
      campaignId === null ? null : await this.campaigns.findScopeOf(accountId, campaignId);
    if (campaignId !== null && scope === null) {
      throw new NotFoundError(`campaign ${campaignId} does not exist`);
    }
    const region = scope?.defaultRegion ?? parseRegion(input.region);
    const person = parsePerson(input, region);
    const suppress = input.suppress ?? true;
    if (typeof suppress !== 'boolean')
      throw InvalidInputError.field('suppress', 'must be a boolean');
    const campaignIds =
      scope !== null
        ? [scope.id]
        : (await this.campaigns.listCampaigns(accountId)).map((c) => c.id);
    const hashes = this.suppression.hashesOf(person);
    const phoneHash = hashes.find((h) => h.kind === 'phone')?.hash ?? null;
    const emailHash = hashes.find((h) => h.kind === 'email')?.hash ?? null;

    const receipt = await this.repository.inTransaction(async (manager) => {
      const leads = await this.leads.erasePerson(manager, campaignIds, person.phone, person.email);
      const rejected = await this.imports.erasePerson(
        manager,
        campaignIds,
        person.phone === null ? [] : phoneDigitForms(person.phone),
        person.email,
      );
      const spreadsheets = await this.spreadsheets.erasePerson(
        manager,
        campaignIds,
        person.phone === null ? null : nationalDigits(person.phone),
        person.email,
      );
      const outbox = await this.deliveries.erasePerson(manager, leads.leadIds);
      const attempts = await this.attempts.redactAttempts(manager, outbox.deliveries);
      const importIds = [...new Set([...leads.importIds, ...rejected.importIds])];
      const apiKeyIds = await this.imports.apiKeysOf(manager, importIds);
      const idempotencyRecords = await this.idempotency.erase(manager, apiKeyIds, importIds);
      const added = suppress ? await this.suppression.add(manager, accountId, hashes) : 0;
      const counts: ErasureCounts = {
        leads: leads.leadIds.length,
        import_rejections: rejected.rejections,
        spreadsheet_imports: spreadsheets,
        events: outbox.events,
        deliveries_cancelled: outbox.cancelled,
        attempts,
        idempotency_records: idempotencyRecords,
        suppression_entries: added,
      };
      const row = {
        id: randomUUID(),
        accountId,
        campaignId,
        phoneHash,
        emailHash,
        keyId: this.suppression.keyId,
        counts,
        suppressed: suppress,
        requestedBy: requesterOf(actor),
      };
      const createdAt = await this.repository.insert(manager, row);
      await auditPrivacyChange(
        this.audit,
        actor,
        accountId,
        'erasure.create',
        { receipt_id: row.id, campaign_id: campaignId, suppressed: suppress, counts },
        manager,
      );
      return { ...row, createdAt };
    });
    return toView(receipt);
  }

  /**
   * The account's latest erasure receipts, newest first.
   * @param limit 1 to {@link ERASURE_LIST_MAX} (default {@link ERASURE_LIST_DEFAULT}).
   * @throws InvalidInputError (field `limit`) for a bad limit.
   */
  async list(accountId: number, limit?: string | number | null): Promise<ErasureReceiptView[]> {
    const n = parsePageLimit(limit, { fallback: ERASURE_LIST_DEFAULT, max: ERASURE_LIST_MAX });
    return (await this.repository.list(accountId, n)).map(toView);
  }

  /** @throws NotFoundError when the receipt is not the account's (or does not exist). */
  async get(accountId: number, id: string): Promise<ErasureReceiptView> {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
    const row = uuid ? await this.repository.find(accountId, id) : null;
    if (row === null) throw new NotFoundError(`erasure receipt ${id} does not exist`);
    return toView(row);
  }
}

function toView(row: ErasureReceiptRow): ErasureReceiptView {
  return {
    id: row.id,
    campaign_id: row.campaignId,
    created_at: row.createdAt.toISOString(),
    requested_by: row.requestedBy,
    suppressed: row.suppressed,
    phone_hash: row.phoneHash?.toString('hex') ?? null,
    email_hash: row.emailHash?.toString('hex') ?? null,
    key_id: row.keyId,
    counts: row.counts,
  };
}
