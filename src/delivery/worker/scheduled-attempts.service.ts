import { Injectable, Logger, Optional } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import pLimit from 'p-limit';
import { AppConfig } from '../../config/app-config';
import { DeliveryTargets, type DeliveryTarget } from '../../webhooks';
import { DeliveryRetryError, WebhookEventPublisher, type QueuedDelivery } from '../outbox';
import { Deliveries, type DeliveryWork } from '../deliveries';
import { DeliveryService, GONE, nextStep } from '../attempts';
import { bindTraceContext } from '../../tracing/trace-hooks';
import { Metrics } from '../../metrics';
import { MicroBatcher } from '../../common/micro-batcher';
import { EndpointThrottle, type ThrottleGrant, type ThrottleLimit } from './endpoint-throttle';
import { WebhookSender, type ShapedRequest } from '../sending';
import { TransformationBusyError } from '../../transformations';

/**
 * What became of a queued delivery: `skipped` (no longer pending, not due yet in a batch, or
 * another job began the same attempt first), `dropped` (its endpoint was disabled or
 * deleted), `missing` (no such delivery in this deployment's database), `held` (on an ordered
 * endpoint, an earlier delivery of its lead is still pending: it waits behind it, without a
 * job, until that one ends; docs/webhooks.md#per-lead-ordering).
 */
export type AttemptOutcome = 'succeeded' | 'skipped' | 'dropped' | 'missing' | 'held';

/**
 * What a batch job did with each of its deliveries ({@link ScheduledAttempts.runBatch}); `left`:
 * not attempted because the worker is stopping; `throttled`: held back by the endpoint's
 * throttle (docs/webhooks.md#throttling), to be put back with the job for `putBack`.
 */
export type BatchOutcome = Record<
  AttemptOutcome | 'retrying' | 'failed' | 'left' | 'throttled',
  number
> & {
  /** The deliveries held back by the throttle and how long they wait (ms); absent when none. */
  putBack?: { deliveryIds: number[]; waitMs: number };
};

/**
 * How early a scheduled attempt may begin, in ms: a retry job whose delay ran out a little
 * before PostgreSQL's clock says its delivery is due still runs.
 */
export const DUE_TOLERANCE_MS = 1_000;

/**
 * Transformation runs of one endpoint in flight from this process at once: the sandbox's own
 * limit per code (a few), so that the deliveries of a batch queue for the sandbox instead of
 * being refused and put back.
 */
const SHAPES_PER_ENDPOINT = 4;

/**
 * Thrown by {@link ScheduledAttempts.run} for a delivery that is not due yet (a job the sweeper
 * queued while a batch scheduled its retry): the job is put back until it is.
 */
export class NotDueError extends Error {
  constructor(readonly waitMs: number) {
    super(`not due for another ${waitMs} ms`);
    this.name = 'NotDueError';
  }
}

/**
 * Thrown by {@link ScheduledAttempts.run} for a delivery held back by its endpoint's throttle
 * (docs/webhooks.md#throttling): the job is put back for `waitMs`, like one not due, with
 * nothing recorded but the delivery's `throttled_until`.
 */
export class ThrottledError extends NotDueError {
  constructor(
    waitMs: number,
    readonly limit: ThrottleLimit | null,
  ) {
    super(waitMs);
    this.message = `waiting on the endpoint's throttle for another ${waitMs} ms`;
    this.name = 'ThrottledError';
  }
}

/** The result of one scheduled attempt of a delivery. */
type Attempted =
  | { kind: 'succeeded' | 'taken' | 'left' | 'dropped' | 'cancelled' }
  | { kind: 'busy'; waitMs: number }
  | { kind: 'retry'; delayMs: number; reason: string }
  | { kind: 'failed'; reason: string };

/**
 * The worker's scheduled attempts (docs/webhooks.md#success-retries-and-health,
 * docs/reliability.md "Batches"): the first attempts of new deliveries, a batch per job, and
 * each retry, a job per delivery; each recorded with its delivery's next state by the retry
 * schedule. At most `WEBHOOK_WORKER_CONCURRENCY` attempts of a process are in flight at once,
 * whatever the jobs. Only the worker loads this.
 */
@Injectable()
export class ScheduledAttempts {
  private readonly logger = new Logger(ScheduledAttempts.name);
  /** The process's attempts in flight, at most `WEBHOOK_WORKER_CONCURRENCY`. */
  private readonly slots: pLimit.Limit;
  private stopping = false;
  /**
   * Per endpoint, its transformation runs in flight from this process, at most
   * {@link SHAPES_PER_ENDPOINT}: a batch's deliveries wait their turn here rather than ask the
   * sandbox all at once, which refuses more than a few calls of one code at a time
   * (docs/webhooks.md#transformations). Dropped when idle.
   */
  private readonly shaping = new Map<number, { limit: pLimit.Limit; users: number }>();
  /** Deliveries released behind one that ended, queued together ({@link queueNextOfLead}). */
  private readonly released = new MicroBatcher<QueuedDelivery, void>(async (deliveries) => {
    await this.dispatcher.enqueue(deliveries);
    return deliveries.map(() => undefined);
  });

  constructor(
    private readonly repository: Deliveries,
    private readonly attempts: DeliveryService,
    private readonly endpoints: DeliveryTargets,
    private readonly dispatcher: WebhookEventPublisher,
    private readonly config: AppConfig,
    private readonly throttle: EndpointThrottle,
    private readonly sender: WebhookSender,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.slots = pLimit(config.webhookWorkerConcurrency);
  }

  /**
   * Starts no more attempts of batches ({@link runBatch} leaves the rest for another worker);
   * attempts under way go on. Called when the worker stops taking jobs.
   */
  stopStartingAttempts(): void {
    this.stopping = true;
  }

  /**
   * Runs the next scheduled attempt of a delivery (a {@link DELIVER_JOB} job).
   * @param resumed the job ran before (a retry, or taken over from a stopped worker): close
   *   the delivery's attempts that a dead process left unfinished first.
   * @param ticket the job's id: held back by the rate of its endpoint's throttle, the job is
   *   given a turn of its own, kept however late it comes back (docs/webhooks.md#throttling).
   * @returns `skipped` when the delivery is no longer pending (already done, or queued twice)
   *   or another job began the same attempt first, `dropped` when its endpoint was
   *   disabled or deleted meanwhile, or found gone by another attempt of this process (nothing
   *   is sent), `missing` when this deployment's database has no such delivery (logged).
   * @throws NotDueError when the delivery is not due yet (the job waits until it is);
   *   ThrottledError (a NotDueError) when its endpoint's throttle holds it back: nothing is
   *   attempted or recorded but `throttled_until`, and the job waits as long as the throttle says;
   *   DeliveryRetryError after a failed attempt with retries left (BullMQ retries after its
   *   delay: the schedule's step, or a 429's or 503's `Retry-After`); UnrecoverableError after
   *   the last one, or after a 410 Gone (the delivery is marked failed).
   */
  async run(
    deliveryId: number,
    endpointId?: number,
    resumed = false,
    ticket?: string,
  ): Promise<AttemptOutcome> {
    // With the endpoint id in the job, the delivery and its endpoint are read at once.
    const [work, knownTarget] = await Promise.all([
      this.repository.findWork(deliveryId),
      endpointId === undefined ? undefined : this.endpoints.find(endpointId),
    ]);
    if (!work) {
      this.logger.warn(
        `Delivery ${deliveryId} does not exist in this deployment's database; job dropped`,
      );
      return 'missing';
    }
    if (work.status !== 'pending') return 'skipped';
    if (work.waitMs > DUE_TOLERANCE_MS) throw new NotDueError(work.waitMs);
    const target = await this.targetOf(work, endpointId, knownTarget);
    if (!target) return this.drop(work);
    if ((await this.holdBehindEarlier([work], target)).size > 0) return 'held';
    const grant = await this.throttle.acquire(target.id, target, 1, ticket);
    if (grant.granted === 0) {
      await this.holdBack([work.id], grant);
      throw new ThrottledError(grant.waitMs, grant.limitedBy);
    }
    const attempted = await this.attempt(work, target, resumed, false, grant.leases[0]);
    switch (attempted.kind) {
      case 'succeeded':
        return 'succeeded';
      case 'dropped':
        return this.drop(work);
      case 'taken':
      case 'left':
      case 'cancelled':
        return 'skipped';
      case 'busy':
        // The process's transformation budget is used up: put back like a throttled delivery.
        await this.repository.markThrottled([work.id], attempted.waitMs);
        throw new ThrottledError(attempted.waitMs, null);
      case 'retry':
        throw new DeliveryRetryError(attempted.reason, attempted.delayMs);
      case 'failed':
        throw new UnrecoverableError(attempted.reason);
    }
  }

  /**
   * Runs the first attempts of a batch of deliveries to one endpoint (a {@link DELIVER_BATCH_JOB}
   * job), each as {@link run} would, all at once within the process's attempt limit. A
   * delivery that is not pending or not due (its attempt in an earlier run of this job failed
   * and its retry is queued) is skipped; one whose attempt failed with retries left is queued
   * again as a job of its own. Running a batch again (BullMQ's retry, a takeover) attempts only
   * what is still due. Once the worker is stopping, deliveries not yet started are `left`.
   * The endpoint's throttle (docs/webhooks.md#throttling) is asked once for all the due
   * deliveries: those it holds back are `throttled`, nothing is recorded of them but
   * `throttled_until`, and `putBack` says which and for how long.
   * @param resumed see {@link run}.
   * @param ticket see {@link run}.
   * @returns how many deliveries came to each outcome.
   * @throws the first unexpected error (PostgreSQL down when an attempt was to begin) after
   *   every other delivery of the batch was attempted: BullMQ runs the batch again.
   */
  async runBatch(
    deliveryIds: number[],
    endpointId: number,
    resumed = false,
    ticket?: string,
  ): Promise<BatchOutcome> {
    const tally: BatchOutcome = {
      succeeded: 0,
      retrying: 0,
      failed: 0,
      skipped: 0,
      dropped: 0,
      missing: 0,
      held: 0,
      left: 0,
      throttled: 0,
    };
    const [works, knownTarget] = await Promise.all([
      Promise.all(deliveryIds.map((id) => this.repository.findWork(id))),
      this.endpoints.find(endpointId),
    ]);
    const errors: unknown[] = [];
    const sendable = knownTarget && this.endpoints.sendsTo(knownTarget) ? knownTarget : null;
    // Those waiting behind an earlier delivery of their lead are held, and ask no throttle.
    const held = sendable
      ? await this.holdBehindEarlier(
          works.filter(
            (work): work is DeliveryWork =>
              work !== null &&
              work.endpointId === endpointId &&
              work.status === 'pending' &&
              work.waitMs <= DUE_TOLERANCE_MS,
          ),
          sendable,
        )
      : new Map<number, number>();
    tally.held = held.size;
    // The due deliveries in order; the throttle lets the first `granted` of them go now.
    const due = works.filter(
      (work): work is DeliveryWork =>
        work !== null &&
        work.status === 'pending' &&
        work.waitMs <= DUE_TOLERANCE_MS &&
        !held.has(work.id),
    );
    const grant = sendable
      ? await this.throttle.acquire(endpointId, sendable, due.length, ticket)
      : { granted: due.length, leases: [], waitMs: 0, limitedBy: null };
    const heldBack = due.slice(grant.granted).map((work) => work.id);
    if (heldBack.length > 0) {
      await this.holdBack(heldBack, grant);
      tally.throttled = heldBack.length;
      tally.putBack = { deliveryIds: heldBack, waitMs: grant.waitMs };
    }
    const leaseOf = new Map(due.slice(0, grant.granted).map((w, i) => [w.id, grant.leases[i]]));
    // Their transformation runs, together (docs/webhooks.md#transformations).
    const shapes = sendable
      ? await this.shapeBatch(due.slice(0, grant.granted), sendable)
      : new Map<number, ShapedRequest | { busy: number }>();
    const waiting = new Set(heldBack);
    // Put back because this process's transformation budget was used up (with the longest wait).
    const busy = { deliveryIds: [] as number[], waitMs: 0 };
    await Promise.all(
      works.map(async (work, i) => {
        if (work && (waiting.has(work.id) || held.has(work.id))) return;
        if (!work) {
          this.logger.warn(
            `Delivery ${deliveryIds[i]} does not exist in this deployment's database; skipped`,
          );
          tally.missing += 1;
          return;
        }
        if (work.status !== 'pending' || work.waitMs > DUE_TOLERANCE_MS) {
          tally.skipped += 1;
          return;
        }
        try {
          const target = await this.targetOf(work, endpointId, knownTarget);
          if (!target) {
            tally[await this.drop(work)] += 1;
            return;
          }
          const attempted = await this.attempt(
            work,
            target,
            resumed,
            true,
            leaseOf.get(work.id),
            shapes.get(work.id),
          );
          if (attempted.kind === 'dropped') tally[await this.drop(work)] += 1;
          else if (attempted.kind === 'left') tally.left += 1;
          else if (attempted.kind === 'taken' || attempted.kind === 'cancelled') tally.skipped += 1;
          else if (attempted.kind === 'busy') {
            busy.deliveryIds.push(work.id);
            busy.waitMs = Math.max(busy.waitMs, attempted.waitMs);
          } else if (attempted.kind === 'succeeded') tally.succeeded += 1;
          else if (attempted.kind === 'failed') tally.failed += 1;
          else if (attempted.kind === 'retry') {
            tally.retrying += 1;
            await this.dispatcher
              .enqueueRetry({ id: work.id, endpointId: work.endpointId }, attempted.delayMs)
              .catch((error: unknown) =>
                this.logger.warn(
                  `Could not queue the retry of delivery ${work.id} (${(error as Error).message}); the sweeper will`,
                ),
              );
          }
        } catch (error) {
          errors.push(error);
        }
      }),
    );
    if (busy.deliveryIds.length > 0) {
      await this.repository.markThrottled(busy.deliveryIds, busy.waitMs);
      tally.throttled += busy.deliveryIds.length;
      tally.putBack = {
        deliveryIds: [...(tally.putBack?.deliveryIds ?? []), ...busy.deliveryIds],
        waitMs: Math.max(tally.putBack?.waitMs ?? 0, busy.waitMs),
      };
    }
    if (errors.length > 0) throw errors[0];
    return tally;
  }

  /**
   * Runs the endpoint's transformation on the delivery's event (docs/webhooks.md#transformations)
   * before an attempt slot is taken, so slow code never holds one. A transformation that
   * returned null skips the delivery at once (reason `transformation`; nothing recorded as an
   * attempt) and releases the lead's next delivery.
   * @returns the shaped request (null: no transformation), `cancelled`, or `busy` with the
   *   wait when this process's transformation budget is used up.
   */
  private async shapeOf(
    work: DeliveryWork,
    target: DeliveryTarget,
    given?: ShapedRequest | { busy: number },
  ): Promise<ShapedRequest | null | { busy: number } | 'cancelled'> {
    if (target.transformation === null) return null;
    let shaped: ShapedRequest | null;
    if (given !== undefined) {
      if ('busy' in given) return given;
      shaped = given;
    } else {
      try {
        shaped = await this.inShapingLane(target.id, () =>
          this.sender.shape(target, work.eventType, work.body),
        );
      } catch (error) {
        if (error instanceof TransformationBusyError) return { busy: error.waitMs };
        throw error;
      }
    }
    if (shaped?.kind !== 'cancelled') return shaped;
    if (await this.repository.markSkipped(work.id, 'transformation')) {
      await this.queueNextOfLead(work);
    }
    return 'cancelled';
  }

  /**
   * The transformation runs of a batch's deliveries to `target`, all in one go
   * ({@link WebhookSender.shapeMany}: a few sandbox tasks, not one per delivery, and the attempts
   * then begin together): each delivery's shaped request, or the wait when this process's
   * transformation budget is used up. Empty when the endpoint has no transformation.
   */
  private async shapeBatch(
    works: DeliveryWork[],
    target: DeliveryTarget,
  ): Promise<Map<number, ShapedRequest | { busy: number }>> {
    const shapes = new Map<number, ShapedRequest | { busy: number }>();
    const own = works.filter((work) => work.endpointId === target.id);
    if (target.transformation === null || own.length === 0) return shapes;
    try {
      const shaped = await this.inShapingLane(target.id, () =>
        this.sender.shapeMany(
          target,
          own.map((work) => ({ eventType: work.eventType, body: work.body })),
        ),
      );
      shaped?.forEach((shape, i) => shapes.set(own[i].id, shape));
    } catch (error) {
      if (!(error instanceof TransformationBusyError)) throw error;
      for (const work of own) shapes.set(work.id, { busy: error.waitMs });
    }
    return shapes;
  }

  /** Runs `run` in endpoint `endpointId`'s shaping lane ({@link shaping}). */
  private async inShapingLane<T>(endpointId: number, run: () => Promise<T>): Promise<T> {
    const lane = this.shaping.get(endpointId) ?? { limit: pLimit(SHAPES_PER_ENDPOINT), users: 0 };
    this.shaping.set(endpointId, lane);
    lane.users += 1;
    try {
      return await lane.limit(run);
    } finally {
      lane.users -= 1;
      if (lane.users === 0) this.shaping.delete(endpointId);
    }
  }

  /**
   * On an endpoint with `ordering = 'per_lead'`, holds those of `works` that an earlier
   * pending delivery of their lead still holds back (docs/webhooks.md#per-lead-ordering); the
   * others (no lead, another endpoint's order) are left to go.
   * @returns the held ones, each with the delivery it waits behind.
   */
  private async holdBehindEarlier(
    works: DeliveryWork[],
    target: DeliveryTarget,
  ): Promise<Map<number, number>> {
    if (target.ordering !== 'per_lead') return new Map();
    // A lead.created is its lead's first event: no delivery of the lead can be ahead of it.
    const ordered = works.flatMap((work) =>
      work.leadId === null || work.endpointId !== target.id || work.eventType === 'lead.created'
        ? []
        : [{ id: work.id, endpointId: work.endpointId, leadId: work.leadId }],
    );
    if (ordered.length === 0) return new Map();
    const held = await this.repository.holdBehindEarlier(ordered);
    this.metrics?.recordOrderingHolds(held.size);
    return held;
  }

  /**
   * After a delivery of a lead ended (succeeded, failed for good, dropped), queues the lead's
   * next delivery to the endpoint, which its end released (docs/webhooks.md#per-lead-ordering).
   * The deliveries released within one turn of the event loop are queued together, in batch
   * jobs per endpoint like new deliveries: a job of their own each would cost every one a round
   * through Redis. Never throws: what is not queued now, the sweeper queues.
   */
  private async queueNextOfLead(work: DeliveryWork): Promise<void> {
    if (work.leadId === null) return;
    try {
      const next = await this.repository.findNextOfLead({
        endpointId: work.endpointId,
        leadId: work.leadId,
        afterId: work.id,
      });
      if (next) await this.released.push(next);
    } catch (error) {
      this.logger.warn(
        `Could not queue the delivery after delivery ${work.id} (${(error as Error).message}); the sweeper will`,
      );
    }
  }

  /**
   * Deliveries the throttle held back: they stay pending with their attempt count, their wait
   * recorded as `throttled_until`, and counted in `campaign_api_delivery_throttle_waits_total`.
   */
  private async holdBack(deliveryIds: number[], grant: ThrottleGrant): Promise<void> {
    this.metrics?.recordThrottleWaits(grant.limitedBy ?? 'rate', deliveryIds.length);
    await this.repository.markThrottled(deliveryIds, grant.waitMs);
  }

  /** The delivery's endpoint, read again when the job named another; null when disabled or gone. */
  private async targetOf(
    work: DeliveryWork,
    endpointId: number | undefined,
    knownTarget: DeliveryTarget | null | undefined,
  ): Promise<DeliveryTarget | null> {
    const target =
      knownTarget !== undefined && work.endpointId === endpointId
        ? knownTarget
        : await this.endpoints.find(work.endpointId);
    return target && this.endpoints.sendsTo(target) ? target : null;
  }

  private async drop(work: DeliveryWork): Promise<'dropped'> {
    await this.repository.markDropped(work.id);
    await this.queueNextOfLead(work);
    return 'dropped';
  }

  /**
   * One scheduled attempt, recorded with the delivery's next state. It waits for one of the
   * process's attempt slots, held while the attempt is begun and sent (not while its result is
   * recorded: those are written together, in batches). Right before it is begun, the target is
   * checked again ({@link DeliveryTargets.sendsTo}): an endpoint this process found gone since
   * it was read is not sent to (`dropped`). The delivery's `next_attempt_at` is set from the
   * same delay the caller queues its retry with ({@link nextStep}).
   * @param ofBatch once the worker is stopping, an attempt of a batch is not started (`left`).
   * @param lease the endpoint's in-flight slot the attempt holds (docs/webhooks.md#throttling),
   *   given back as soon as it is sent or not started.
   * @param shape its transformation's outcome when the batch ran it already
   *   ({@link shapeBatch}); undefined: run here, if the endpoint has one.
   */
  private async attempt(
    work: DeliveryWork,
    target: DeliveryTarget,
    resumed: boolean,
    ofBatch: boolean,
    lease?: string,
    shape?: ShapedRequest | { busy: number },
  ): Promise<Attempted> {
    const start = {
      endpointId: work.endpointId,
      deliveryId: work.id,
      messageId: work.eventId,
      eventType: work.eventType,
      scheduled: { attemptCount: work.attemptCount },
    };
    let shaped: ShapedRequest | null;
    try {
      const made = await this.shapeOf(work, target, shape);
      if (made === 'cancelled' || (made !== null && 'busy' in made)) {
        // Nothing is sent: the in-flight slot goes back at once.
        if (lease !== undefined) void this.throttle.release(target.id, lease, 0);
        return made === 'cancelled' ? { kind: 'cancelled' } : { kind: 'busy', waitMs: made.busy };
      }
      shaped = made;
    } catch (error) {
      if (lease !== undefined) void this.throttle.release(target.id, lease, 0);
      throw error;
    }
    // Bound to this job's trace context: a slot may start it from another job's.
    const begun = await this.slots(
      bindTraceContext(async () => {
        const startedAt = Date.now();
        try {
          if (ofBatch && this.stopping) return 'left' as const;
          // The target may have been read before another attempt found the endpoint gone.
          if (!this.endpoints.sendsTo(target)) return 'dropped' as const;
          return await this.attempts.runAttempt(
            start,
            target,
            work.body,
            resumed,
            work.traceContext,
            shaped,
          );
        } finally {
          if (lease !== undefined) {
            void this.throttle.release(target.id, lease, Date.now() - startedAt);
          }
        }
      }),
    );
    if (begun === 'left' || begun === 'dropped') return { kind: begun };
    // Another job of the delivery attempted it since it was read, or is attempting it now.
    if (!begun) return { kind: 'taken' };
    // The shape was given: the runner never cancels (only its own transformation run could).
    if ('cancelled' in begun) return { kind: 'cancelled' };
    const { id: attemptId, deliveryCreatedAt, closedBefore, result } = begun;
    // Attempts closed as abandoned just now count too: the schedule goes on after them.
    const attemptNumber = work.attemptCount + closedBefore + 1;
    // Waiting does not fix code: a failed transformation fails the delivery at once
    // (docs/webhooks.md#transformations). A 410 fails it at once too; a 429 or 503 may move
    // its next attempt (Retry-After).
    const transformationFailed = begun.shaped?.kind === 'error';
    const next = transformationFailed
      ? ({ status: 'failed', delayMs: 0 } as const)
      : nextStep(attemptNumber, result, this.config.webhookRetryScheduleMs);
    await this.attempts.finishAttempt({
      ...start,
      id: attemptId,
      deliveryCreatedAt,
      result,
      // Scheduled attempts run only while the delivery is pending: a success is its first.
      eventCreatedAt: work.eventCreatedAt,
      next: {
        status: next.status,
        nextAttemptAt: next.status === 'pending' ? new Date(Date.now() + next.delayMs) : null,
        reason: transformationFailed ? 'transformation_error' : null,
      },
    });
    // Its end released the lead's next delivery, if one waits behind it.
    if (next.status !== 'pending') await this.queueNextOfLead(work);
    if (result.success) return { kind: 'succeeded' };
    const reason = `delivery ${work.id} attempt ${attemptNumber} failed: ${result.error}`;
    if (next.status === 'failed') {
      const why = transformationFailed
        ? 'its transformation failed (not retried on the schedule)'
        : result.statusCode === GONE
          ? 'the endpoint is gone'
          : 'no retries left';
      return { kind: 'failed', reason: `${reason}; ${why}` };
    }
    return { kind: 'retry', delayMs: next.delayMs, reason };
  }
}
