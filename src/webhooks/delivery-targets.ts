import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import type { EntityManager } from 'typeorm';
import { MAX_INT4 } from '../common/ids';
import { SigningSecretBox } from './signing-secrets';
import { WebhookEndpointsRepository, type HealthIncrement } from './webhook-endpoints.repository';

/** What the delivery worker needs to send to an endpoint. */
export interface DeliveryTarget {
  id: number;
  url: string;
  isEnabled: boolean;
  /** Plaintext signing secrets: the current one, then the previous one while it is still valid. */
  secrets: string[];
}

/** An endpoint of a campaign as the outbox sees it when an event is recorded. */
export interface Subscriber {
  id: number;
  /** The event types it subscribes to. */
  subscribedEvents: string[];
  /** False: its deliveries are recorded as `skipped`, never sent. */
  isEnabled: boolean;
}

/** The outcome of one attempt, as the health counters see it. */
export interface AttemptOutcome {
  /** When the attempt started. */
  attemptedAt: Date;
  /** ms from sending to the answer or the failure. */
  durationMs: number;
  success: boolean;
}

/**
 * What the delivery module needs of webhook endpoints (docs/webhooks.md): where and with which
 * secrets to send, which endpoints an event goes to, and the health counters each attempt
 * adds to. The only way other modules reach the `webhook_endpoint` table.
 */
@Injectable()
export class DeliveryTargets {
  /**
   * Endpoint look-ups of concurrent delivery attempts made within 2 ms share one query. No
   * caching: each attempt sees whether its endpoint is enabled at that moment.
   */
  private readonly targets = new DataLoader<number, DeliveryTarget | null>(
    (ids) => this.findNow(ids),
    {
      cache: false,
      maxBatchSize: 500,
      batchScheduleFn: (callback) => setTimeout(callback, 2),
    },
  );

  constructor(
    private readonly repository: WebhookEndpointsRepository,
    private readonly secretBox: SigningSecretBox,
  ) {}

  /** The URL, state and valid secrets of an endpoint, or null when it does not exist. */
  find(id: number): Promise<DeliveryTarget | null> {
    return id > MAX_INT4 ? Promise.resolve(null) : this.targets.load(id);
  }

  private async findNow(ids: readonly number[]): Promise<Array<DeliveryTarget | null>> {
    const rows = await this.repository.findTargets(ids);
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
   * The endpoints of a campaign with their subscriptions and whether each is enabled, read
   * inside the caller's transaction: an event gets a delivery for each endpoint subscribed to
   * its type when it is recorded, pending when the endpoint is enabled and `skipped` when it
   * is disabled (docs/webhooks.md#events).
   * @returns `[{id, subscribedEvents, isEnabled}]` by id, disabled endpoints included.
   */
  subscribers(manager: EntityManager, campaignId: number): Promise<Subscriber[]> {
    return this.repository.findSubscribers(manager, campaignId);
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
    await this.repository.addToHealth(manager, sumByEndpoint(attempts));
  }
}

/**
 * Totals attempts per endpoint: counts, summed duration, and the latest start with its
 * outcome (ties go to the later attempt in the list). Pure; exported for its unit test.
 */
export function sumByEndpoint(
  attempts: Array<AttemptOutcome & { endpointId: number }>,
): HealthIncrement[] {
  const totals = new Map<number, HealthIncrement>();
  for (const a of attempts) {
    const t = totals.get(a.endpointId) ?? {
      endpointId: a.endpointId,
      attempts: 0,
      successes: 0,
      durationMs: 0,
      lastAt: a.attemptedAt,
      lastOk: a.success,
    };
    t.attempts += 1;
    t.successes += a.success ? 1 : 0;
    t.durationMs += a.durationMs;
    if (a.attemptedAt.getTime() >= t.lastAt.getTime()) {
      t.lastAt = a.attemptedAt;
      t.lastOk = a.success;
    }
    totals.set(a.endpointId, t);
  }
  return [...totals.values()];
}
