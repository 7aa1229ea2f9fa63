import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
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

/** How long the previous signing secret stays valid after a rotation (docs/operations.md). */
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

/** Fields an operator may set on an endpoint (docs/cli.md). */
export interface EndpointChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * Webhook endpoints (docs/api.md#webhook-reads, docs/webhooks.md): the API's read side, the operator's
 * management commands, and what the DeliveryModule needs (targets, subscribers, health
 * counters). Other modules use this service, never the table.
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    @InjectRepository(WebhookEndpoint) private readonly endpoints: Repository<WebhookEndpoint>,
    private readonly secretBox: SigningSecretBox,
  ) {}

  /** The campaign's endpoints ordered by id (docs/api.md#webhook-reads). */
  async list(campaignId: number): Promise<WebhookEndpointView[]> {
    const rows = await this.endpoints.find({ where: { campaignId }, order: { id: 'ASC' } });
    return rows.map(toEndpointView);
  }

  /**
   * Health of endpoint `endpointId` of `campaignId`, read from its counters (O(1)).
   * @throws ApiError 404 when it is not an endpoint of that campaign.
   */
  async health(campaignId: number, endpointId: number): Promise<WebhookEndpointHealthView> {
    // One indexed row read (a plain query: this is the hottest read of the API).
    const [row]: Array<{
      id: number;
      url: string;
      is_enabled: boolean;
      total_deliveries: number;
      successful_deliveries: number;
      failed_deliveries: number;
      total_duration_ms: number;
      last_delivery_at: Date | null;
      last_delivery_is_successful: boolean | null;
    }> =
      endpointId > MAX_INT4
        ? []
        : await this.endpoints.query(
            `SELECT id, url, is_enabled, total_deliveries, successful_deliveries, failed_deliveries,
                    total_duration_ms, last_delivery_at, last_delivery_is_successful
               FROM webhook_endpoint WHERE id = $1 AND campaign_id = $2`,
            [endpointId, campaignId],
          );
    if (!row)
      throw ApiError.notFound(`Campaign ${campaignId} has no webhook endpoint ${endpointId}`);
    return toHealthView(
      this.endpoints.create({
        id: row.id,
        url: row.url,
        isEnabled: row.is_enabled,
        totalDeliveries: row.total_deliveries,
        successfulDeliveries: row.successful_deliveries,
        failedDeliveries: row.failed_deliveries,
        totalDurationMs: row.total_duration_ms,
        lastDeliveryAt: row.last_delivery_at,
        lastDeliveryIsSuccessful: row.last_delivery_is_successful,
      }),
    );
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
   * delivery carries both signatures (docs/operations.md).
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

  /**
   * Endpoint look-ups of concurrent delivery attempts made within 2 ms share one query. No
   * caching: each attempt sees whether its endpoint is enabled at that moment.
   */
  private readonly targets = new DataLoader<number, DeliveryTarget | null>(
    (ids) => this.findTargetsNow(ids),
    {
      cache: false,
      maxBatchSize: 500,
      batchScheduleFn: (callback) => setTimeout(callback, 2),
    },
  );

  /** The URL, state and valid secrets of an endpoint, or null when it no longer exists. */
  findTarget(id: number): Promise<DeliveryTarget | null> {
    return id > MAX_INT4 ? Promise.resolve(null) : this.targets.load(id);
  }

  private async findTargetsNow(ids: readonly number[]): Promise<Array<DeliveryTarget | null>> {
    const rows: Array<{
      id: number;
      url: string;
      is_enabled: boolean;
      secret_encrypted: string;
      previous_secret_encrypted: string | null;
      previous_secret_valid: boolean;
    }> = await this.endpoints.query(
      `SELECT id, url, is_enabled, secret_encrypted, previous_secret_encrypted,
              coalesce(previous_secret_expires_at > now(), false) AS previous_secret_valid
         FROM webhook_endpoint WHERE id = ANY($1::int[])`,
      [ids],
    );
    const byId = new Map(
      rows.map((row) => {
        const secrets = [this.secretBox.decrypt(row.secret_encrypted)];
        if (row.previous_secret_encrypted && row.previous_secret_valid) {
          secrets.push(this.secretBox.decrypt(row.previous_secret_encrypted));
        }
        return [row.id, { id: row.id, url: row.url, isEnabled: row.is_enabled, secrets }];
      }),
    );
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * The enabled endpoints of a campaign with their subscriptions, read inside the caller's
   * transaction (an event goes to the endpoints subscribed when it is recorded, docs/webhooks.md).
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
   * Adds attempts to their endpoints' health counters, in the caller's transaction (the one
   * recording the attempts), so health is exact and O(1) to read: one UPDATE for any number
   * of attempts. The "last delivery" fields follow the attempt that started last, even when
   * attempts finish out of order.
   */
  async countAttempts(
    manager: EntityManager,
    attempts: Array<AttemptOutcome & { endpointId: number }>,
  ): Promise<void> {
    const totals = new Map<
      number,
      { n: number; ok: number; duration: number; lastAt: Date; lastOk: boolean }
    >();
    for (const a of attempts) {
      const t = totals.get(a.endpointId) ?? {
        n: 0,
        ok: 0,
        duration: 0,
        lastAt: a.attemptedAt,
        lastOk: a.success,
      };
      t.n += 1;
      t.ok += a.success ? 1 : 0;
      t.duration += a.durationMs;
      if (a.attemptedAt.getTime() >= t.lastAt.getTime()) {
        t.lastAt = a.attemptedAt;
        t.lastOk = a.success;
      }
      totals.set(a.endpointId, t);
    }
    const rows = [...totals].sort(([a], [b]) => a - b); // one lock order for concurrent batches
    await manager.query(
      `UPDATE webhook_endpoint e SET
         total_deliveries = e.total_deliveries + a.n,
         successful_deliveries = e.successful_deliveries + a.ok,
         failed_deliveries = e.failed_deliveries + (a.n - a.ok),
         total_duration_ms = e.total_duration_ms + a.duration,
         last_delivery_is_successful = CASE WHEN e.last_delivery_at IS NULL OR e.last_delivery_at <= a.last_at
                                            THEN a.last_ok ELSE e.last_delivery_is_successful END,
         last_delivery_at = GREATEST(e.last_delivery_at, a.last_at)
       FROM unnest($1::int[], $2::int[], $3::int[], $4::float8[], $5::timestamptz[], $6::bool[])
            AS a(id, n, ok, duration, last_at, last_ok)
       WHERE e.id = a.id`,
      [
        rows.map(([id]) => id),
        rows.map(([, t]) => t.n),
        rows.map(([, t]) => t.ok),
        rows.map(([, t]) => t.duration),
        rows.map(([, t]) => t.lastAt),
        rows.map(([, t]) => t.lastOk),
      ],
    );
  }

  private async require(id: number): Promise<WebhookEndpoint> {
    const endpoint = id > MAX_INT4 ? null : await this.endpoints.findOneBy({ id });
    if (!endpoint) throw new InvalidInputError(`webhook endpoint ${id} does not exist`);
    return endpoint;
  }
}

/**
 * Validates an endpoint URL and returns it normalised as WHATWG `URL.href` (lower-case scheme
 * and host, default port dropped, IDN host in punycode, path kept), which is what is stored,
 * listed and delivered to.
 * @throws InvalidInputError unless `url` is an absolute http(s) URL without credentials, at
 *   most 2,048 characters as typed and normalised.
 */
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
  if (url.trim().length > MAX_URL_LENGTH || parsed.href.length > MAX_URL_LENGTH)
    throw new InvalidInputError(`--url must be at most ${MAX_URL_LENGTH} characters`);
  return parsed.href;
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
