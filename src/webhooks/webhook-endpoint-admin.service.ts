import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';
import { CampaignNotFoundError } from '../campaigns/campaign-errors';
import { CampaignsService } from '../campaigns/campaigns.service';
import { validateDescription, validateEvents, validateUrl } from './endpoint-input';
import { generateSigningSecret, SigningSecretBox } from './signing-secrets';
import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { toEndpointView, type WebhookEndpointView } from './webhook-endpoint.views';

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
   * Creates an endpoint with a new signing secret.
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
      isEnabled: fields.enabled ?? true,
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

  /** @throws NotFoundError for an unknown endpoint; InvalidInputError for a bad value. */
  async update(id: number, changes: EndpointChanges): Promise<WebhookEndpointView> {
    const endpoint = await this.require(id);
    if (changes.url !== undefined) endpoint.url = validateUrl(changes.url);
    if (changes.events !== undefined) endpoint.subscribedEvents = validateEvents(changes.events);
    if (changes.description !== undefined)
      endpoint.description = validateDescription(changes.description);
    if (changes.enabled !== undefined) endpoint.isEnabled = changes.enabled;
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
   * @returns the new plaintext secret (shown once).
   * @throws NotFoundError for an unknown endpoint.
   */
  async rotateSecret(id: number): Promise<{ id: number; secret: string }> {
    const endpoint = await this.require(id);
    const secret = generateSigningSecret();
    endpoint.previousSecretEncrypted = endpoint.secretEncrypted;
    endpoint.previousSecretExpiresAt = new Date(Date.now() + SECRET_ROTATION_OVERLAP_MS);
    endpoint.secretEncrypted = this.secretBox.encrypt(secret);
    await this.repository.save(endpoint);
    return { id, secret };
  }

  private async require(id: number): Promise<WebhookEndpoint> {
    const endpoint = id > MAX_INT4 ? null : await this.repository.findById(id);
    if (!endpoint) throw endpointNotFound(id);
    return endpoint;
  }
}

function endpointNotFound(id: number): NotFoundError {
  return new NotFoundError(`webhook endpoint ${id} does not exist`);
}
