import type { DeliveryStatusReason } from './webhook-delivery.entity';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MicroBatcher } from '../../common/micro-batcher';
import type { TraceCarrier } from '../../tracing/trace-hooks';
import type { LedgerDay } from '../analytics';
import {
  DeliveryReadsRepository,
  type DeliveryWork,
  type OverdueDelivery,
} from './delivery-reads.repository';
import type { QueuedDelivery } from './queued-delivery';
import {
  WebhookDeliveriesRepository,
  type DeliveryMove,
  type DeliveryPair,
} from './webhook-deliveries.repository';
import { WebhookEventsRepository, type NewEvent } from './webhook-events.repository';
import { FilteredEventsRepository, type FilteredCount } from './filtered-events.repository';

/**
 * The face of `webhook_event` and `webhook_delivery` (docs/architecture.md#modules-and-tables):
 * every other delivery module writes and reads them through this service, the outbox's writes
 * in the caller's transaction (docs/architecture.md#publishing-events), an attempt's move of
 * its delivery in the attempt's.
 */
@Injectable()
export class Deliveries {
  private readonly nextOfLeads = new MicroBatcher<
    { endpointId: number; leadId: number; afterId: number },
    QueuedDelivery | null
  >((ended) => this.deliveries.findNextOfLeads(ended));

  constructor(
    private readonly events: WebhookEventsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly reads: DeliveryReadsRepository,
    private readonly filtered: FilteredEventsRepository,
  ) {}

  /**
   * Records events and one delivery per (event, endpoint) pair in the caller's transaction: one
   * INSERT per table. A pair with `skipped` is written `skipped`, never queued
   * (docs/webhooks.md#events).
   * @param traceContext stored with each event (docs/operations.md#traces); null when tracing
   *   is off.
   * @param filtered the events each endpoint's payload filter left out
   *   (docs/webhooks.md#payload-filters), added to its count for the UTC day of `filteredAt`
   *   in the same transaction; endpoints with none are left out.
   * @returns the pending deliveries, to queue after the commit.
   */
  async record(
    manager: EntityManager,
    campaignId: number,
    events: NewEvent[],
    pairs: DeliveryPair[],
    traceContext: TraceCarrier | null,
    filtered: FilteredCount[] = [],
    filteredAt: Date = new Date(),
  ): Promise<QueuedDelivery[]> {
    await this.filtered.add(manager, filteredAt, filtered);
    if (events.length === 0) return [];
    // A lead's deliveries to an ordered endpoint go in commit order: recordings for the same
    // lead wait for each other. A `lead.created` is its lead's first event, recorded in the
    // transaction that stores the lead, which no other can name before it commits.
    const ordered = new Set(pairs.filter((p) => p.leadId != null).map((p) => p.eventId));
    if (ordered.size > 0) {
      await this.deliveries.lockLeadSequences(
        manager,
        events
          .filter((e) => e.leadId !== null && e.type !== 'lead.created' && ordered.has(e.id))
          .map((e) => e.leadId!),
      );
    }
    await this.events.insertEvents(manager, campaignId, events, traceContext);
    return this.deliveries.insertDeliveries(manager, pairs);
  }

  /** Counts one more attempt on each delivery and applies its next state, in `manager`'s transaction. */
  moveOn(manager: EntityManager, moves: DeliveryMove[]): Promise<void> {
    return this.deliveries.moveOn(manager, moves);
  }

  /** Holds pending deliveries back for their endpoint's throttle (docs/webhooks.md#throttling). */
  markThrottled(deliveryIds: readonly number[], waitMs: number): Promise<void> {
    return this.deliveries.markThrottled(deliveryIds, waitMs);
  }

  /**
   * Holds the deliveries that wait behind an earlier pending one of their lead
   * ({@link WebhookDeliveriesRepository.holdBehindEarlier}, docs/webhooks.md#per-lead-ordering).
   * @returns the held ones, each with the delivery it waits behind.
   */
  holdBehindEarlier(
    deliveries: ReadonlyArray<{ id: number; endpointId: number; leadId: number }>,
  ): Promise<Map<number, number>> {
    return this.deliveries.holdBehindEarlier(deliveries);
  }

  /**
   * The next deliveries of leads whose delivery just ended, due and not held, to queue now
   * ({@link WebhookDeliveriesRepository.findNextOfLeads}); batched across concurrent callers.
   */
  findNextOfLead(ended: {
    endpointId: number;
    leadId: number;
    afterId: number;
  }): Promise<QueuedDelivery | null> {
    return this.nextOfLeads.push(ended);
  }

  /**
   * Marks a pending delivery skipped because its endpoint's transformation returned null
   * (docs/webhooks.md#transformations).
   * @returns whether it was still pending.
   */
  markSkipped(deliveryId: number, reason: DeliveryStatusReason): Promise<boolean> {
    return this.deliveries.markSkipped(deliveryId, reason);
  }

  /**
   * An erasure's part of the outbox, in the caller's transaction (docs/privacy.md#erasure): the
   * events about `leadIds` are redacted and their deliveries not sent yet are cancelled
   * (`skipped`, `status_reason = 'erased'`).
   * @returns the events redacted, every delivery of them (id and `created_at` as its attempts'
   *   partition key, text), and how many were cancelled.
   */
  async erasePerson(
    manager: EntityManager,
    leadIds: number[],
  ): Promise<{
    events: number;
    deliveries: Array<{ id: number; createdAt: string }>;
    cancelled: number;
  }> {
    if (leadIds.length === 0) return { events: 0, deliveries: [], cancelled: 0 };
    const eventIds = await this.events.redactLeadEvents(manager, leadIds);
    if (eventIds.length === 0) return { events: 0, deliveries: [], cancelled: 0 };
    const { deliveries, cancelled } = await this.deliveries.cancelErased(manager, eventIds);
    return { events: eventIds.length, deliveries, cancelled };
  }

  /** Marks a pending delivery dropped (its endpoint was disabled or deleted). */
  markDropped(deliveryId: number): Promise<void> {
    return this.deliveries.markDropped(deliveryId);
  }

  /** The delivery and its event's exact body, or null when it no longer exists (batched reads). */
  findWork(deliveryId: number): Promise<DeliveryWork | null> {
    return this.reads.findWork(deliveryId);
  }

  /** Pending deliveries overdue by `graceMs`, oldest first, keyset paged (the sweeper's). */
  findOverdue(
    graceMs: number,
    limit: number,
    after?: OverdueDelivery,
    queuedBefore: number | null = null,
  ): Promise<OverdueDelivery[]> {
    return this.reads.findOverdue(graceMs, limit, after, queuedBefore);
  }

  /** An endpoint's deliveries of the last `days` UTC days by status (docs/dashboard.md#delivery-ledger). */
  countByDay(endpointId: number, days: number): Promise<LedgerDay[]> {
    return this.reads.countDeliveriesByDay(endpointId, days);
  }

  /**
   * The campaign's `limit` latest events of `types`, newest first, with their bodies (a payload
   * filter's preview, docs/dashboard.md#payload-filter-preview).
   */
  recentEvents(
    campaignId: number,
    types: readonly string[],
    limit: number,
  ): Promise<Array<{ id: string; type: string; body: string; createdAt: Date }>> {
    return this.reads.recentEvents(campaignId, types, limit);
  }

  /**
   * Moves locked deliveries back to `pending`, due now, in the caller's transaction (a bulk
   * recovery's batch, docs/webhooks.md#bulk-recovery).
   * @returns the deliveries moved, each with whether an attempt of it is under way.
   */
  moveBackToPending(
    manager: EntityManager,
    deliveryIds: readonly number[],
  ): Promise<Array<QueuedDelivery & { inFlight: boolean }>> {
    return this.deliveries.moveBackToPending(manager, deliveryIds);
  }
}
