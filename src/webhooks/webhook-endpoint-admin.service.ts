import { AppConfig } from '../config/app-config';
import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';
import { CampaignNotFoundError } from '../campaigns/campaign-errors';
import { CampaignsService } from '../campaigns/campaigns.service';
import { validateDescription, validateEvents, validateUrl } from './endpoint-input';
import { generateSigningSecret, SigningSecretBox } from './signing-secrets.service';
import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import {
  toEndpointDetail,
  toEndpointView,
  type WebhookEndpointDetail,
  type WebhookEndpointView,
} from './webhook-endpoint.views';

/** How long the previous signing secret stays valid after a rotation (docs/operations.md). */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Fields an operator may set on an endpoint (docs/cli.md); `undefined` leaves one as is. */
export interface EndpointChanges {
  url?: string;
  events?: string[];
  /** `null` or blank clears it. */
  description?: string | null;
  enabled?: boolean;
}

/**
 * Managing webhook endpoints (docs/cli.md#commands): what the
 * operator CLI does today and the dashboard will do. Input errors name the field
 * (`InvalidInputError`); unknown endpoints and campaigns are `NotFoundError`s.
 */
@Injectable()
export class WebhookEndpointAdmin {
  constructor(
    private readonly repository: WebhookEndpointsRepository,
    private readonly campaigns: CampaignsService,
    private readonly secretBox: SigningSecretBox,
    private readonly config: AppConfig,
  ) {}

  /**
   * The campaign's endpoints ordered by id, without secrets.
   * @throws CampaignNotFoundError when the campaign does not exist.
   */
  async list(campaignId: number): Promise<WebhookEndpointView[]> {
    if (!(await this.campaigns.exists(campaignId))) throw new CampaignNotFoundError(campaignId);
    return (await this.repository.listOfCampaign(campaignId)).map(toEndpointView);
  }

  /**
   * Creates an endpoint with a new signing secret; created disabled, it is disabled `manual`.
   * @returns the endpoint and the plaintext secret, which is never available again.
   * @throws InvalidInputError for a bad URL, event type or description;
   *   CampaignNotFoundError for an unknown campaign.
   */
  async create(
    campaignId: number,
    fields: { url: string; events: string[]; description?: string | null; enabled?: boolean },
  ): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    const secret = generateSigningSecret();
    const entity = this.repository.build({
      campaignId,
      url: validateUrl(fields.url),
      subscribedEvents: validateEvents(fields.events),
      description: validateDescription(fields.description ?? null),
      ...enabledState(fields.enabled ?? true),
      secretEncrypted: this.secretBox.encrypt(secret),
      previousSecretEncrypted: null,
      previousSecretExpiresAt: null,
    });
    if (campaignId > MAX_INT4) throw new CampaignNotFoundError(campaignId);
    try {
      return { endpoint: toEndpointView(await this.repository.save(entity)), secret };
    } catch (error) {
      if ((error as { code?: string }).code === '23503')
        throw new CampaignNotFoundError(campaignId);
      throw error;
    }
  }

  /**
   * Changes an endpoint. Disabling an enabled one records the reason `manual` and the time;
   * enabling a disabled one clears both, whatever the reason was (docs/webhooks.md#disabled-endpoints),
   * and keeps them as `last_disabled_reason` and `last_disabled_at`: the period whose missed
   * deliveries the dashboard offers to replay (docs/webhooks.md#replaying-missed-deliveries).
   * Disabling one already disabled keeps its reason and time.
   * @throws NotFoundError for an unknown endpoint; InvalidInputError for a bad value.
   */
  async update(id: number, changes: EndpointChanges): Promise<WebhookEndpointView> {
    const endpoint = await this.require(id);
    if (changes.url !== undefined) endpoint.url = validateUrl(changes.url);
    if (changes.events !== undefined) endpoint.subscribedEvents = validateEvents(changes.events);
    if (changes.description !== undefined)
      endpoint.description = validateDescription(changes.description);
    if (changes.enabled !== undefined && changes.enabled !== endpoint.isEnabled) {
      if (changes.enabled) {
        endpoint.lastDisabledAt = endpoint.disabledAt;
        endpoint.lastDisabledReason = endpoint.disabledReason;
      }
      Object.assign(endpoint, enabledState(changes.enabled));
    }
    return toEndpointView(await this.repository.save(endpoint));
  }

  /** Deletes an endpoint with its deliveries and attempts. @throws NotFoundError for an unknown endpoint. */
  async delete(id: number): Promise<{ id: number; deleted: true }> {
    if (id > MAX_INT4 || !(await this.repository.deleteById(id))) throw endpointNotFound(id);
    return { id, deleted: true };
  }

  /**
   * Replaces the signing secret; the old one stays valid for 24 hours, during which every
   * delivery carries both signatures (docs/operations.md).
   * @returns the new plaintext secret (shown once) and until when the previous one is valid.
   * @throws NotFoundError for an unknown endpoint.
   */
  async rotateSecret(
    id: number,
  ): Promise<{ id: number; secret: string; previous_secret_expires_at: Date }> {
    const endpoint = await this.require(id);
    const secret = generateSigningSecret();
    endpoint.previousSecretEncrypted = endpoint.secretEncrypted;
    const expiresAt = new Date(Date.now() + SECRET_ROTATION_OVERLAP_MS);
    endpoint.previousSecretExpiresAt = expiresAt;
    endpoint.secretEncrypted = this.secretBox.encrypt(secret);
    await this.repository.save(endpoint);
    return { id, secret, previous_secret_expires_at: expiresAt };
  }

  /**
   * The campaign's endpoints with their health, for a user of `accountId` (the dashboard).
   * @throws CampaignNotFoundError unless the campaign is one of the account's.
   */
  async listOfAccount(accountId: number, campaignId: number): Promise<WebhookEndpointDetail[]> {
    if (!(await this.campaigns.belongsTo(accountId, campaignId))) {
      throw new CampaignNotFoundError(campaignId);
    }
    const now = new Date();
    return (await this.repository.listOfCampaign(campaignId)).map((e) =>
      toEndpointDetail(e, now, this.config.webhookDisableAfterMs),
    );
  }

  /** How many endpoints each campaign has, for campaign listings (0 when none). */
  async countByCampaign(campaignIds: number[]): Promise<Map<number, number>> {
    const counts = await this.repository.countByCampaign(campaignIds);
    return new Map(campaignIds.map((id) => [id, counts.get(id) ?? 0]));
  }

  /**
   * Endpoint `id` with its health, if it is one of `accountId`'s.
   * @throws NotFoundError otherwise (one answer for "not yours" and "does not exist").
   */
  async detailOfAccount(accountId: number, id: number): Promise<WebhookEndpointDetail> {
    return toEndpointDetail(
      await this.requireOfAccount(accountId, id),
      new Date(),
      this.config.webhookDisableAfterMs,
    );
  }

  /**
   * Endpoint `id` if it is one of `accountId`'s: the check the dashboard makes before any
   * operation on an endpoint.
   * @throws NotFoundError otherwise.
   */
  async requireOfAccount(accountId: number, id: number): Promise<WebhookEndpoint> {
    const endpoint = id > MAX_INT4 ? null : await this.repository.findOfAccount(accountId, id);
    if (!endpoint) throw endpointNotFound(id);
    return endpoint;
  }

  /**
   * The current signing secret in clear, for an admin who asked to see it again (the caller
   * records that in the audit log).
   * @throws NotFoundError for an unknown endpoint.
   */
  async revealSecret(id: number): Promise<{ id: number; secret: string }> {
    const endpoint = await this.require(id);
    return { id, secret: this.secretBox.decrypt(endpoint.secretEncrypted) };
  }

  /**
   * The campaign and account of endpoint `id` (the CLI's audit entries name the account).
   * @returns null when no endpoint has that id.
   */
  async ownerOf(id: number): Promise<{ campaignId: number; accountId: number } | null> {
    const endpoint = id > MAX_INT4 ? null : await this.repository.findById(id);
    const accountId = endpoint ? await this.campaigns.accountOf(endpoint.campaignId) : null;
    return endpoint && accountId !== null ? { campaignId: endpoint.campaignId, accountId } : null;
  }

  private async require(id: number): Promise<WebhookEndpoint> {
    const endpoint = id > MAX_INT4 ? null : await this.repository.findById(id);
    if (!endpoint) throw endpointNotFound(id);
    return endpoint;
  }
}

/**
 * The state columns of an endpoint an admin or operator enables or disables now: enabled
 * without a reason, or disabled `manual` as of now.
 */
function enabledState(
  enabled: boolean,
): Pick<
  WebhookEndpoint,
  'isEnabled' | 'disabledReason' | 'disabledAt' | 'failingSince' | 'failingReason'
> {
  // Either way it starts afresh: not failing (docs/webhooks.md#failing-endpoints).
  const notFailing = { failingSince: null, failingReason: null };
  return enabled
    ? { isEnabled: true, disabledReason: null, disabledAt: null, ...notFailing }
    : { isEnabled: false, disabledReason: 'manual', disabledAt: new Date(), ...notFailing };
}

function endpointNotFound(id: number): NotFoundError {
  return new NotFoundError(`webhook endpoint ${id} does not exist`);
}
