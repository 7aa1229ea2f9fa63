import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { EventType } from '../webhooks/event-types';
import { DeliveryTargets } from '../webhooks/delivery-targets';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { DeliveryRepository, type NewEvent } from './delivery.repository';
import type { QueuedDelivery } from './delivery-queue';

/** An event to record: its type and its `data` object. */
export interface EventInput {
  type: EventType;
  data: Record<string, unknown>;
}

/** What {@link WebhookEventPublisher.record} wrote; hand it to `dispatch` after the commit. */
export interface RecordedEvents {
  events: Array<{ id: string; type: EventType; createdAt: Date; deliveries: number }>;
  deliveries: QueuedDelivery[];
}

/**
 * The transactional outbox (docs/webhooks.md). Any module records events inside its own
 * transaction with {@link record}; an event is written only when some enabled endpoint of the
 * campaign subscribes to its type, with one delivery per such endpoint. After the commit,
 * {@link dispatch} queues the deliveries; what it cannot queue, the sweeper does.
 */
@Injectable()
export class WebhookEventPublisher {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly endpoints: DeliveryTargets,
    private readonly repository: DeliveryRepository,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  /**
   * Records `inputs` for `campaignId` in the caller's transaction.
   * Body of each event: `{"type", "timestamp" (ISO), "data"}`, stored as the exact bytes to send.
   */
  async record(
    manager: EntityManager,
    campaignId: number,
    inputs: EventInput[],
  ): Promise<RecordedEvents> {
    if (inputs.length === 0) return { events: [], deliveries: [] };
    const subscribers = await this.endpoints.subscribers(manager, campaignId);
    const createdAt = new Date();
    const timestamp = createdAt.toISOString();
    const events: NewEvent[] = [];
    const summary: RecordedEvents['events'] = [];
    const pairs: Array<{ eventId: string; endpointId: number }> = [];
    const endpointsByType = new Map<string, number[]>();
    for (const input of inputs) {
      let targets = endpointsByType.get(input.type);
      if (!targets) {
        targets = subscribers
          .filter((s) => s.subscribedEvents.includes(input.type))
          .map((s) => s.id);
        endpointsByType.set(input.type, targets);
      }
      if (targets.length === 0) continue;
      const id = randomUUID();
      events.push({
        id,
        type: input.type,
        body: JSON.stringify({ type: input.type, timestamp, data: input.data }),
        createdAt,
      });
      summary.push({ id, type: input.type, createdAt, deliveries: targets.length });
      for (const endpointId of targets) pairs.push({ eventId: id, endpointId });
    }
    const deliveries = await this.repository.insertEvents(manager, campaignId, events, pairs);
    return { events: summary, deliveries };
  }

  /**
   * The event types some enabled endpoint of the campaign subscribes to, read in the
   * caller's transaction: lets a caller skip building events nobody will receive.
   */
  async subscribedTypes(manager: EntityManager, campaignId: number): Promise<Set<string>> {
    const subscribers = await this.endpoints.subscribers(manager, campaignId);
    return new Set(subscribers.flatMap((s) => s.subscribedEvents));
  }

  /** Queues what {@link record} wrote; call after the transaction committed. Never throws. */
  dispatch(recorded: RecordedEvents): Promise<void> {
    return this.dispatcher.enqueueAfterCommit(recorded.deliveries);
  }

  /** Records and dispatches in a transaction of its own (the CLI's `event emit`). */
  async publish(campaignId: number, inputs: EventInput[]): Promise<RecordedEvents> {
    const recorded = await this.dataSource.transaction((manager) =>
      this.record(manager, campaignId, inputs),
    );
    await this.dispatch(recorded);
    return recorded;
  }
}
