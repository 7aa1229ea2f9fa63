import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ApiError } from '../common/api-error';
import { MAX_INT4 } from '../common/ids';
import { InvalidInputError } from '../common/invalid-input.error';
import { isEventType } from './event-types';
import { generateSigningSecret, SigningSecretBox } from './signing-secrets';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import {
  toEndpointView,
  toHealthView,
  type WebhookEndpointHealthView,
  type WebhookEndpointView,
} from './webhook-endpoint.views';

/** How long the previous signing secret stays valid after a rotation (CONTRACT 9). */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const MAX_URL_LENGTH = 2048;

/** What the delivery worker needs to send to an endpoint. */
export interface DeliveryTarget {
  id: number;
  url: string;
  isEnabled: boolean;
  /** Plaintext signing secrets: the current one, then the previous one while it is still valid. */
  secrets: string[];
}

/** The outcome of one attempt, as the health counters see it. */
export interface AttemptOutcome {
  attemptedAt: Date;
  durationMs: number;
  success: boolean;
}

/** Fields an operator may set on an endpoint (CONTRACT 7). */
export interface EndpointChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * Webhook endpoints (spec 2.7–2.8, CONTRACT 5–7): the API's read side, the operator's
 * management commands, and what the DeliveryModule needs (targets, subscribers, health
 * counters). Other modules use this service, never the table.
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    @InjectRepository(WebhookEndpoint) private readonly endpoints: Repository<WebhookEndpoint>,
    private readonly secretBox: SigningSecretBox,
  ) {}

  /** The campaign's endpoints ordered by id (CONTRACT 5). */
  async list(campaignId: number): Promise<WebhookEndpointView[]> {
    const rows = await this.endpoints.find({ where: { campaignId }, order: { id: 'ASC' } });
    return rows.map(toEndpointView);
  }

  /**
   * Health of endpoint `endpointId` of `campaignId`, read from its counters (O(1)).
   * @throws ApiError 404 when it is not an endpoint of that campaign.
   */
  async health(campaignId: number, endpointId: number): Promise<WebhookEndpointHealthView> {
    const endpoint =
      endpointId > MAX_INT4 ? null : await this.endpoints.findOneBy({ id: endpointId, campaignId });
    if (!endpoint)
      throw ApiError.notFound(`Campaign ${campaignId} has no webhook endpoint ${endpointId}`);
    return toHealthView(endpoint);
  }

  /**
   * Creates an endpoint with a new signing secret.
   * @returns the endpoint and the plaintext secret, which is never available again.
   * @throws InvalidInputError for a bad URL, event type or description, or an unknown campaign.
   */
  async create(
    campaignId: number,
    fields: { url: string; events: string[]; description?: string | null; enabled?: boolean },
  ): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    const secret = generateSigningSecret();
    const entity = this.endpoints.create({
      campaignId,
      url: validateUrl(fields.url),
      subscribedEvents: validateEvents(fields.events),
      description: validateDescription(fields.description ?? null),
      isEnabled: fields.enabled ?? true,
      secretEncrypted: this.secretBox.encrypt(secret),
      previousSecretEncrypted: null,
      previousSecretExpiresAt: null,
    });
    try {
      return { endpoint: toEndpointView(await this.endpoints.save(entity)), secret };
    } catch (error) {
      if ((error as { code?: string }).code === '23503')
        throw new InvalidInputError(`campaign ${campaignId} does not exist`);
      throw error;
    }
  }

  /** @throws InvalidInputError for an unknown endpoint or a bad value. */
  async update(id: number, changes: EndpointChanges): Promise<WebhookEndpointView> {
    const endpoint = await this.require(id);
    if (changes.url !== undefined) endpoint.url = validateUrl(changes.url);
    if (changes.events !== undefined) endpoint.subscribedEvents = validateEvents(changes.events);
    if (changes.description !== undefined)
      endpoint.description = validateDescription(changes.description);
    if (changes.enabled !== undefined) endpoint.isEnabled = changes.enabled;
    return toEndpointView(await this.endpoints.save(endpoint));
  }

  /** Deletes an endpoint with its deliveries and attempts. @throws InvalidInputError for an unknown endpoint. */
  async delete(id: number): Promise<{ id: number; deleted: true }> {
    const result = id > MAX_INT4 ? { affected: 0 } : await this.endpoints.delete({ id });
    if (!result.affected) throw new InvalidInputError(`webhook endpoint ${id} does not exist`);
    return { id, deleted: true };
  }

  /**
   * Replaces the signing secret; the old one stays valid for 24 hours, during which every
   * delivery carries both signatures (CONTRACT 9).
   * @returns the new plaintext secret (shown once).
   */
  async rotateSecret(id: number): Promise<{ id: number; secret: string }> {
    const endpoint = await this.require(id);
    const secret = generateSigningSecret();
    endpoint.previousSecretEncrypted = endpoint.secretEncrypted;
    endpoint.previousSecretExpiresAt = new Date(Date.now() + SECRET_ROTATION_OVERLAP_MS);
    endpoint.secretEncrypted = this.secretBox.encrypt(secret);
    await this.endpoints.save(endpoint);
    return { id, secret };
  }

  /** The URL, state and valid secrets of an endpoint, or null when it no longer exists. */
  async findTarget(id: number): Promise<DeliveryTarget | null> {
    const endpoint = await this.endpoints.findOne({
      where: { id },
      select: {
        id: true,
        url: true,
        isEnabled: true,
        secretEncrypted: true,
        previousSecretEncrypted: true,
        previousSecretExpiresAt: true,
      },
    });
    if (!endpoint) return null;
    const secrets = [this.secretBox.decrypt(endpoint.secretEncrypted)];
    if (
      endpoint.previousSecretEncrypted &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt.getTime() > Date.now()
    ) {
      secrets.push(this.secretBox.decrypt(endpoint.previousSecretEncrypted));
    }
    return { id: endpoint.id, url: endpoint.url, isEnabled: endpoint.isEnabled, secrets };
  }

  /**
   * The enabled endpoints of a campaign with their subscriptions, read inside the caller's
   * transaction (an event goes to the endpoints subscribed when it is recorded, CONTRACT 6).
   */
  async subscribers(
    manager: EntityManager,
    campaignId: number,
  ): Promise<Array<{ id: number; subscribedEvents: string[] }>> {
    return manager.find(WebhookEndpoint, {
      where: { campaignId, isEnabled: true },
      select: { id: true, subscribedEvents: true },
      order: { id: 'ASC' },
    });
  }

  /**
   * Counts one attempt in the endpoint's health counters, in the caller's transaction (the
   * one recording the attempt), so health is exact and O(1) to read. The "last delivery"
   * fields follow the most recent attempt even when attempts finish out of order.
   */
  async countAttempt(
    manager: EntityManager,
    endpointId: number,
    outcome: AttemptOutcome,
  ): Promise<void> {
    await manager.query(
      `UPDATE webhook_endpoint SET
         total_deliveries = total_deliveries + 1,
         successful_deliveries = successful_deliveries + CASE WHEN $2 THEN 1 ELSE 0 END,
         failed_deliveries = failed_deliveries + CASE WHEN $2 THEN 0 ELSE 1 END,
         total_duration_ms = total_duration_ms + $3,
         last_delivery_is_successful = CASE WHEN last_delivery_at IS NULL OR last_delivery_at <= $4
                                            THEN $2 ELSE last_delivery_is_successful END,
         last_delivery_at = GREATEST(last_delivery_at, $4)
       WHERE id = $1`,
      [endpointId, outcome.success, outcome.durationMs, outcome.attemptedAt],
    );
  }

  private async require(id: number): Promise<WebhookEndpoint> {
    const endpoint = id > MAX_INT4 ? null : await this.endpoints.findOneBy({ id });
    if (!endpoint) throw new InvalidInputError(`webhook endpoint ${id} does not exist`);
    return endpoint;
  }
}

/** @throws InvalidInputError unless `url` is an absolute http(s) URL without credentials. */
export function validateUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new InvalidInputError(`--url must be an absolute http or https URL, got "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidInputError(
      `--url must use http or https, got "${parsed.protocol.replace(':', '')}"`,
    );
  }
  if (parsed.username || parsed.password)
    throw new InvalidInputError('--url must not contain credentials');
  if (url.trim().length > MAX_URL_LENGTH)
    throw new InvalidInputError(`--url must be at most ${MAX_URL_LENGTH} characters`);
  return url.trim();
}

function validateEvents(events: string[]): string[] {
  const unique = [...new Set(events.map((e) => e.trim()).filter((e) => e !== ''))];
  if (unique.length === 0)
    throw new InvalidInputError('--events must name at least one event type');
  const unknown = unique.filter((e) => !isEventType(e));
  if (unknown.length > 0)
    throw new InvalidInputError(`--events has unknown event types: ${unknown.join(', ')}`);
  return unique;
}

function validateDescription(description: string | null): string | null {
  if (description === null || description.trim() === '') return null;
  if (description.length > 500)
    throw new InvalidInputError('--description must be at most 500 characters');
  return description.trim();
}
