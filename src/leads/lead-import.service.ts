import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { AuthPrincipal } from '../auth/auth-principal';
import type { CampaignScope } from '../campaigns/campaigns.service';
import type { LeadUploadRequest } from './dto/lead-upload-request.dto';
import type { LeadUploadError, LeadUploadResponse } from './dto/lead-upload-response.dto';
import { LeadImport } from './lead-import.entity';
import { validateLead, type NormalizedLead } from './lead-validator';
import { LeadsRepository, type CreatedLead, type ImportContext } from './leads.repository';
import { WebhookEventPublisher, type EventInput } from '../delivery/webhook-event.publisher';
import { IdempotencyService } from '../idempotency/idempotency.service';

const DUPLICATE_MESSAGE = 'duplicate: a lead with this phone already exists in the campaign';
/** PostgreSQL deadlock_detected / serialization_failure: safe to run the transaction again. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const MAX_TRANSACTION_ATTEMPTS = 3;
const FOREIGN_KEY_VIOLATION = '23503';
/** The foreign keys an import breaks when its campaign no longer exists. */
const CAMPAIGN_FOREIGN_KEYS = new Set(['fk_lead_import_campaign', 'fk_lead_campaign']);

interface AcceptedLead {
  row: number;
  lead: NormalizedLead;
}

/**
 * Imports a batch of leads into a campaign (docs/api.md#lead-upload, docs/api.md#per-lead-validation): validates each
 * lead, settles duplicates within the batch and against the campaign, and writes the import
 * record, the leads and their outbox events in one transaction.
 */
@Injectable()
export class LeadImportService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly leads: LeadsRepository,
    private readonly events: WebhookEventPublisher,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * @param request the upload after envelope validation.
   * @param campaign the campaign authorised for the caller.
   * @param principal the caller (its API key is recorded on the import).
   * @param clientIp the client's address as Fastify sees it (see `TRUST_PROXY`).
   * @param idempotencyKey a claimed `Idempotency-Key`: its response is stored in the same transaction.
   * @returns the 202 body; `errors` is sorted by row.
   * @throws ApiError 403 when the campaign was deleted meanwhile; database errors (the
   *   transaction is rolled back: nothing of the upload is written).
   */
  async importLeads(
    request: LeadUploadRequest,
    campaign: CampaignScope,
    principal: AuthPrincipal,
    clientIp: string | null,
    idempotencyKey?: string,
  ): Promise<LeadUploadResponse> {
    const acknowledgedAt = new Date();
    const errors: LeadUploadError[] = [];
    const accepted: AcceptedLead[] = [];
    const firstRowOfPhone = new Map<string, number>();
    let batchDuplicates = 0;

    request.leads.forEach((input, row) => {
      const check = validateLead(input, campaign.defaultRegion);
      if (!check.ok) {
        errors.push({ row, ...check.problem });
        return;
      }
      if (firstRowOfPhone.has(check.lead.phone)) {
        if (request.skip_duplicates) batchDuplicates++;
        else errors.push({ row, var_field: 'phone', message: DUPLICATE_MESSAGE });
        return;
      }
      firstRowOfPhone.set(check.lead.phone, row);
      accepted.push({ row, lead: check.lead });
    });
    // One lock order for every upload: concurrent uploads of overlapping phones never deadlock.
    accepted.sort((a, b) =>
      a.lead.phone < b.lead.phone ? -1 : a.lead.phone > b.lead.phone ? 1 : 0,
    );

    const context: ImportContext = {
      importId: randomUUID(),
      campaignId: campaign.id,
      source: request.source,
      tags: request.tags,
    };
    const received = request.leads.length;

    for (let attempt = 1; ; attempt++) {
      try {
        const { response, recorded } = await this.dataSource.transaction(
          'READ COMMITTED',
          async (manager) => {
            const invalidBeforeInsert = errors.length;
            await manager.insert(LeadImport, {
              id: context.importId,
              campaignId: campaign.id,
              apiKeyId: principal.apiKeyId,
              source: request.source,
              tags: request.tags,
              disclaimerVersion: request.disclaimer_version,
              complianceAcknowledgedAt: acknowledgedAt,
              clientIp,
              receivedCount: received,
              validCount: received - invalidBeforeInsert,
              invalidCount: invalidBeforeInsert,
              duplicateCount: batchDuplicates,
            });
            const created = await this.leads.insertIgnoringDuplicates(
              manager,
              context,
              accepted.map((a) => a.lead),
            );

            const allErrors = [...errors];
            let duplicates = batchDuplicates;
            if (created.length < accepted.length) {
              const createdPhones = new Set(created.map((lead) => lead.phone));
              for (const { row, lead } of accepted) {
                if (createdPhones.has(lead.phone)) continue;
                if (request.skip_duplicates) duplicates++;
                else allErrors.push({ row, var_field: 'phone', message: DUPLICATE_MESSAGE });
              }
              await manager.update(
                LeadImport,
                { id: context.importId },
                {
                  validCount: received - allErrors.length,
                  invalidCount: allErrors.length,
                  duplicateCount: duplicates,
                },
              );
            }

            const subscribed =
              created.length > 0
                ? await this.events.subscribedTypes(manager, campaign.id)
                : new Set<string>();
            const recorded = await this.events.record(
              manager,
              campaign.id,
              leadEvents(context, accepted, created, subscribed),
            );

            allErrors.sort((a, b) => a.row - b.row);
            const response: LeadUploadResponse = {
              status: 'accepted',
              import_id: context.importId,
              received_count: received,
              valid_count: received - allErrors.length,
              invalid_count: allErrors.length,
              duplicate_count: duplicates,
              errors: allErrors,
            };
            if (idempotencyKey !== undefined) {
              await this.idempotency.complete(
                manager,
                principal.apiKeyId,
                idempotencyKey,
                202,
                response,
              );
            }
            return { response, recorded };
          },
        );
        // After the commit; never awaited by the caller's response and never throws.
        void this.events.dispatch(recorded);
        return response;
      } catch (error) {
        const driverError = (error as { driverError?: { code?: string; constraint?: string } })
          .driverError;
        const code = driverError?.code ?? '';
        // The campaign was deleted after the guard's (briefly cached) look-up: the same 403 as
        // for any campaign that does not exist, and nothing was written.
        if (
          code === FOREIGN_KEY_VIOLATION &&
          CAMPAIGN_FOREIGN_KEYS.has(driverError?.constraint ?? '')
        ) {
          throw ApiError.forbidden();
        }
        if (attempt >= MAX_TRANSACTION_ATTEMPTS || !RETRYABLE_SQLSTATES.has(code)) throw error;
      }
    }
  }
}

/**
 * The outbox events of an import (docs/webhooks.md): `lead.created` per created lead, in request
 * order, and one `leads.bulk_created` when at least one lead was created; only the types
 * some enabled endpoint subscribes to are built.
 */
function leadEvents(
  context: ImportContext,
  accepted: AcceptedLead[],
  created: CreatedLead[],
  subscribed: Set<string>,
): EventInput[] {
  if (created.length === 0 || subscribed.size === 0) return [];
  const perLead = subscribed.has('lead.created');
  const createdByPhone = new Map(created.map((lead) => [lead.phone, lead]));
  const events: EventInput[] = [];
  const leadIds: number[] = [];
  const inRequestOrder = [...accepted].sort((a, b) => a.row - b.row);
  for (const { lead } of inRequestOrder) {
    const stored = createdByPhone.get(lead.phone);
    if (!stored) continue;
    leadIds.push(stored.id);
    if (!perLead) continue;
    events.push({
      type: 'lead.created',
      data: {
        id: stored.id,
        campaign_id: context.campaignId,
        phone: lead.phone,
        first_name: lead.first_name,
        last_name: lead.last_name,
        email: lead.email,
        company: lead.company,
        title: lead.title,
        tags: context.tags,
        source: context.source,
        import_id: context.importId,
        created_at: stored.created_at.toISOString(),
      },
    });
  }
  if (!subscribed.has('leads.bulk_created')) return events;
  events.push({
    type: 'leads.bulk_created',
    data: {
      import_id: context.importId,
      campaign_id: context.campaignId,
      source: context.source,
      tags: context.tags,
      lead_count: leadIds.length,
      lead_ids: leadIds,
    },
  });
  return events;
}
