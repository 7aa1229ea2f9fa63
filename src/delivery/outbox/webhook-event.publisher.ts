import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { EventInput, EventType } from '../../webhooks';
import {
  DeliveryTargets,
  FILTER_BUDGET_BASE_MS,
  FILTER_BUDGET_PER_EVENT_MS,
  type Subscriber,
} from '../../webhooks';
import { DeliveryDispatcher } from './delivery.dispatcher';
import { Deliveries, type DeliveryPair, type FilteredCount, type NewEvent } from '../deliveries';
import type { QueuedDelivery } from './delivery.queue';
import { captureTraceContext } from '../../tracing/trace-hooks';

/**
 * An event to record: its type and its `data`, typed by that type's payload schema
 * (`src/webhooks/event-schemas.constants.ts`, docs/webhooks.md#payload-schemas), so a `data`
 * that leaves the schema fails to compile.
 */
export type { EventInput };

const SAFE_ID = /^[1-9][0-9]{0,15}$/;

/**
 * The lead an event is about (docs/dashboard.md#a-leads-page), stored with it as
 * `webhook_event.lead_id` so that a lead's deliveries are found by index: the `id` of a
 * `lead.created` event's data (the stored lead), the `lead_id` of any other type's data (the
 * convention of `lead.status_changed`, `lead.converted`, `call.*` and `form.submitted`,
 * docs/webhooks.md#payloads). `leads.bulk_created` names many leads and is about its import:
 * null. The id must be a positive safe integer, as a JSON number or as decimal digits without
 * sign or leading zero; anything else is null (the event is recorded all the same). Pure.
 */
export function leadIdOf(type: string, data: Record<string, unknown>): number | null {
  if (type === 'leads.bulk_created') return null;
  const value = type === 'lead.created' ? data.id : data.lead_id;
  const id = typeof value === 'string' && SAFE_ID.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 1 ? id : null;
}

/** One event {@link WebhookEventPublisher.record} wrote. */
export interface RecordedEvent {
  id: string;
  type: EventType;
  createdAt: Date;
  /** Its pending deliveries: the enabled endpoints subscribed to its type. */
  deliveries: number;
  /** Its `skipped` deliveries: the disabled endpoints subscribed to its type. */
  skipped: number;
}

/** What {@link WebhookEventPublisher.record} wrote; hand it to `dispatch` after the commit. */
export interface RecordedEvents {
  events: RecordedEvent[];
  /** The pending deliveries, to queue (skipped ones are never queued). */
  deliveries: QueuedDelivery[];
  /**
   * (event, endpoint) pairs a payload filter left out (docs/webhooks.md#payload-filters): no
   * delivery was written for them. An event every subscribed endpoint's filter left out is not
   * recorded at all.
   */
  filtered: number;
}

/** How often a failing filter is logged, at most: once per endpoint per this many ms. */
const FILTER_ERROR_LOG_INTERVAL_MS = 60_000;

/** One endpoint's filter during one {@link WebhookEventPublisher.record} call. */
interface FilterRun {
  filtered: number;
  errors: number;
  /** ms spent evaluating it so far in this call. */
  spentMs: number;
  /** The evaluation error that stopped it (the budget ran out), or null. */
  stoppedBy: string | null;
  /** The first error code seen in this call, to log. */
  firstError: string | null;
}

/**
 * The transactional outbox (docs/webhooks.md#events, docs/architecture.md#publishing-events).
 * Any module records events inside its own transaction with {@link record}; an event is
 * written only when some endpoint of the campaign, enabled or disabled, subscribes to its
 * type, with one delivery per such endpoint: pending for an enabled one, `skipped` for a
 * disabled one. After the commit, {@link dispatch} queues the pending deliveries; what it
 * cannot queue, the sweeper does.
 */
@Injectable()
export class WebhookEventPublisher {
  private readonly logger = new Logger(WebhookEventPublisher.name);
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly endpoints: DeliveryTargets,
    private readonly deliveries: Deliveries,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  /**
   * Records `inputs` for `campaignId` in the caller's transaction: each input some endpoint
   * subscribes to becomes one event and one delivery per subscribed endpoint (pending, or
   * `skipped` for a disabled endpoint), all in one INSERT per table; the other inputs write
   * nothing. Body of each event: `{"type", "timestamp" (ISO), "data"}`, stored as the exact
   * bytes to send. With tracing on, each event also keeps the caller's trace context, to which
   * every attempt of its deliveries is linked (docs/operations.md#traces).
   */
  async record(
    manager: EntityManager,
    campaignId: number,
    inputs: readonly EventInput[],
  ): Promise<RecordedEvents> {
    if (inputs.length === 0) return { events: [], deliveries: [], filtered: 0 };
    const subscribers = await this.endpoints.subscribers(manager, campaignId);
    const createdAt = new Date();
    const timestamp = createdAt.toISOString();
    const events: NewEvent[] = [];
    const summary: RecordedEvent[] = [];
    const pairs: DeliveryPair[] = [];
    const endpointsByType = new Map<string, Subscriber[]>();
    const runs = new Map<number, FilterRun>();
    const budgetMs = FILTER_BUDGET_BASE_MS + FILTER_BUDGET_PER_EVENT_MS * inputs.length;
    let filteredPairs = 0;
    for (const input of inputs) {
      let targets = endpointsByType.get(input.type);
      if (!targets) {
        targets = subscribers.filter((s) => s.subscribedEvents.includes(input.type));
        endpointsByType.set(input.type, targets);
      }
      if (targets.length === 0) continue;
      if (targets.some((s) => s.filter !== null)) {
        const before = targets.length;
        targets = targets.filter((s) => passes(s, input, timestamp, runs, budgetMs));
        filteredPairs += before - targets.length;
        if (targets.length === 0) continue;
      }
      const id = randomUUID();
      const leadId = leadIdOf(input.type, input.data);
      events.push({
        id,
        type: input.type,
        body: JSON.stringify({ type: input.type, timestamp, data: input.data }),
        leadId,
        createdAt,
      });
      const skipped = targets.filter((s) => !s.isEnabled).length;
      summary.push({
        id,
        type: input.type,
        createdAt,
        deliveries: targets.length - skipped,
        skipped,
      });
      for (const s of targets) {
        pairs.push({
          eventId: id,
          endpointId: s.id,
          skipped: !s.isEnabled,
          // Kept in its lead's order on an ordered endpoint (docs/webhooks.md#per-lead-ordering).
          leadId: s.ordering === 'per_lead' ? leadId : null,
        });
      }
    }
    const filtered: FilteredCount[] = [];
    for (const [endpointId, run] of runs) {
      if (run.filtered > 0)
        filtered.push({ endpointId, filtered: run.filtered, errors: run.errors });
      if (run.errors > 0) this.logFilterErrors(endpointId, run);
    }
    const deliveries = await this.deliveries.record(
      manager,
      campaignId,
      events,
      pairs,
      captureTraceContext(),
      filtered,
      createdAt,
    );
    return { events: summary, deliveries, filtered: filteredPairs };
  }

  /** When each endpoint's failing filter was last logged (ms since the epoch). */
  private readonly filterErrorLoggedAt = new Map<number, number>();

  /**
   * Logs that an endpoint's filter failed on some events (docs/webhooks.md#when-a-filter-fails),
   * at most once per endpoint per minute: the endpoint, how many events, the first error's
   * code. Never the event's data nor the evaluator's message (which may quote a value).
   */
  private logFilterErrors(endpointId: number, run: FilterRun): void {
    const now = Date.now();
    const last = this.filterErrorLoggedAt.get(endpointId);
    if (last !== undefined && now - last < FILTER_ERROR_LOG_INTERVAL_MS) return;
    if (this.filterErrorLoggedAt.size > 10_000) this.filterErrorLoggedAt.clear();
    this.filterErrorLoggedAt.set(endpointId, now);
    this.logger.warn(
      `The payload filter of endpoint ${endpointId} failed on ${run.errors} event(s) (${run.stoppedBy ?? run.firstError}): counted as no match`,
    );
  }

  /**
   * The event types some endpoint of the campaign subscribes to, enabled or disabled (an
   * event of such a type is recorded, if only as skipped deliveries), read in the caller's
   * transaction: lets a caller skip building events {@link record} would not write.
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
  async publish(campaignId: number, inputs: readonly EventInput[]): Promise<RecordedEvents> {
    const recorded = await this.dataSource.transaction((manager) =>
      this.record(manager, campaignId, inputs),
    );
    await this.dispatch(recorded);
    return recorded;
  }

  // The queue's side for the other delivery modules (the worker's retries and sweeper, bulk
  // recoveries): this service is the outbox module's one face (docs/architecture.md#modules-and-tables).

  /** Queues committed deliveries ({@link DeliveryDispatcher.enqueue}). */
  enqueue(deliveries: QueuedDelivery[]): Promise<void> {
    return this.dispatcher.enqueue(deliveries);
  }

  /** Queues overdue deliveries again, one delivery job each ({@link DeliveryDispatcher.requeue}). */
  requeue(deliveries: QueuedDelivery[]): Promise<void> {
    return this.dispatcher.requeue(deliveries);
  }

  /** Queues a failed delivery's retry, delayed by `delayMs` ({@link DeliveryDispatcher.enqueueRetry}). */
  enqueueRetry(delivery: QueuedDelivery, delayMs: number): Promise<void> {
    return this.dispatcher.enqueueRetry(delivery, delayMs);
  }

  /**
   * Wakes the jobs the endpoint's throttle put back, after its limits changed
   * ({@link DeliveryDispatcher.wakeThrottled}). Never throws: what Redis did not take comes
   * back by itself within a minute.
   * @returns how many jobs were woken (0 when Redis could not be reached).
   */
  wakeThrottled(endpointId: number): Promise<number> {
    return this.dispatcher.wakeThrottled(endpointId).catch((error: unknown) => {
      this.logger.warn(
        `Could not wake the throttled jobs of endpoint ${endpointId}: ${(error as Error).message}`,
      );
      return 0;
    });
  }

  /** Makes delayed jobs of deliveries due now ({@link DeliveryDispatcher.wake}). */
  wake(deliveries: QueuedDelivery[]): Promise<QueuedDelivery[]> {
    return this.dispatcher.wake(deliveries);
  }

  /** When the job next in line was queued ({@link DeliveryDispatcher.nextInLineQueuedAt}). */
  nextInLineQueuedAt(): Promise<number | null> {
    return this.dispatcher.nextInLineQueuedAt();
  }
}

/**
 * Whether endpoint `s` gets `input` (docs/webhooks.md#payload-filters): always without a
 * filter; with one, when it evaluates to true. An evaluation error is no match; so is every
 * event after the filter spent `budgetMs` in this call (`cost_limit`). Counts what it leaves
 * out in `runs`.
 */
function passes(
  s: Subscriber,
  input: EventInput,
  timestamp: string,
  runs: Map<number, FilterRun>,
  budgetMs: number,
): boolean {
  if (s.filter === null) return true;
  let run = runs.get(s.id);
  if (!run) {
    run = { filtered: 0, errors: 0, spentMs: 0, stoppedBy: null, firstError: null };
    runs.set(s.id, run);
  }
  if (run.stoppedBy !== null) {
    run.filtered++;
    run.errors++;
    return false;
  }
  const started = performance.now();
  const outcome = s.filter.evaluate(input.type, timestamp, input.data);
  run.spentMs += performance.now() - started;
  if (run.spentMs > budgetMs) run.stoppedBy = 'cost_limit';
  if (outcome.match) return true;
  run.filtered++;
  if (outcome.error !== null) {
    run.errors++;
    run.firstError ??= outcome.code;
  }
  return false;
}
