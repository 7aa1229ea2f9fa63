import { Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../../metrics';
import { MicroBatcher } from '../../common/micro-batcher';
import { isDatabaseUnavailableError } from '../../common/database-errors';
import { DeliveryTargets } from '../../webhooks';
import { DeliveryStatsService, rollUp, type RolledAttempt } from '../analytics';
import { Deliveries } from '../deliveries';
import { AttemptsRepository } from './attempts.repository';
import {
  type AttemptRecord,
  type AttemptStart,
  type ClosedAttempt,
  type AttemptKey,
  type FinishedAttempt,
  UNKNOWN_OUTCOME,
} from './attempt-records';

/** How long a finished attempt's result is held and retried while PostgreSQL is unreachable, in ms. */
export const RESULT_RETRY_WINDOW_MS = 60_000;
const RESULT_RETRY_MAX_DELAY_MS = 2_000;
const CLOSE_BATCH = 1_000;

/** An attempt to begin; `closeOrphans` closes the delivery's attempts left unfinished by a dead process. */
interface BeginRequest {
  start: AttemptStart;
  closeOrphans: boolean;
}

/** A begun attempt: its row's key, and the delivery's abandoned attempts closed just before. */
export interface BegunAttempt extends AttemptKey {
  closedBefore: number;
}

/**
 * The delivery attempt log (docs/reliability.md "Attempts are recorded before they are sent").
 * An attempt is written before its request is sent ({@link begin}) and completed with its
 * result afterwards ({@link finish}): its delivery moves on and its endpoint's health counters
 * grow in the same transaction, so health always equals the finished attempts. A result that
 * cannot be written because PostgreSQL is unreachable is held and retried for
 * {@link RESULT_RETRY_WINDOW_MS}; an attempt whose process died before recording is closed as
 * failed with an unknown outcome ({@link closeAbandoned}, and when its delivery is retried).
 * Attempts that begin or finish together share one transaction.
 */
@Injectable()
export class AttemptLog {
  private readonly logger = new Logger(AttemptLog.name);
  private readonly begins = new MicroBatcher<BeginRequest, BegunAttempt | null>((batch) =>
    this.beginBatch(batch),
  );
  private readonly finishes = new MicroBatcher<FinishedAttempt, AttemptRecord | null>((batch) =>
    this.withRetries(() => this.finishBatch(batch)),
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: AttemptsRepository,
    private readonly deliveries: Deliveries,
    private readonly endpoints: DeliveryTargets,
    private readonly rollups: DeliveryStatsService,
    private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /**
   * Records that an attempt is about to be sent.
   * @param closeOrphans for a job that ran before: first close this delivery's unfinished
   *   attempts as of unknown outcome. The job's lock is the caller's, so they belong to a
   *   process that stopped, or to a begin whose commit reached PostgreSQL but not its caller.
   * @returns the attempt id to pass to {@link finish}, and how many of the delivery's
   *   abandoned attempts were closed first (they count in its attempt number); null for a
   *   `scheduled` start whose attempt number its delivery already has: another job read the
   *   same state and began it first (nothing may be sent then).
   * @throws database errors (nothing may be sent then).
   */
  begin(start: AttemptStart, closeOrphans = false): Promise<BegunAttempt | null> {
    return this.begins.push({ start, closeOrphans });
  }

  /**
   * Records a begun attempt's result.
   * @returns the finished row, or null when the attempt had meanwhile been closed as of unknown outcome.
   * @throws database errors once PostgreSQL stayed unreachable for {@link RESULT_RETRY_WINDOW_MS}.
   */
  finish(attempt: FinishedAttempt): Promise<AttemptRecord | null> {
    return this.finishes.push(attempt);
  }

  /**
   * Closes attempts left unfinished longer than any live process can hold one (the send limit
   * plus {@link RESULT_RETRY_WINDOW_MS} plus a margin): failed, outcome unknown, counted in health.
   * @returns how many it closed.
   */
  async closeAbandoned(): Promise<number> {
    const olderThanMs = this.config.webhookTimeoutMs + RESULT_RETRY_WINDOW_MS + 30_000;
    const closed = await this.dataSource.transaction((manager) =>
      this.closeUnfinished(manager, null, olderThanMs),
    );
    this.metrics?.recordAbandonedAttempts(closed.length);
    return closed.length;
  }

  private async beginBatch(batch: BeginRequest[]): Promise<Array<BegunAttempt | null>> {
    const orphanScope = batch
      .filter((b) => b.closeOrphans && b.start.deliveryId !== null)
      .map((b) => b.start.deliveryId!);
    const starts = batch.map((b) => b.start);
    if (orphanScope.length === 0) {
      // One INSERT statement commits on its own: no BEGIN/COMMIT round trips on the hot path.
      const ids = await this.repository.beginAttempts(this.dataSource.manager, starts);
      return ids.map((key) => (key === null ? null : { ...key, closedBefore: 0 }));
    }
    let abandoned = 0;
    const begun = await this.dataSource.transaction(async (manager) => {
      // The job's lock is ours: no live scheduled attempt of these deliveries is left.
      const closed = await this.closeUnfinished(manager, orphanScope, 0);
      abandoned = closed.length;
      const closedBefore = batch.map((b) =>
        b.closeOrphans ? closed.filter((c) => c.deliveryId === b.start.deliveryId).length : 0,
      );
      // The attempts closed just now count: a scheduled start expects them.
      const ids = await this.repository.beginAttempts(
        manager,
        starts.map((start, i) =>
          start.scheduled && closedBefore[i] > 0
            ? {
                ...start,
                scheduled: { attemptCount: start.scheduled.attemptCount + closedBefore[i] },
              }
            : start,
        ),
      );
      return ids.map((key, i) => (key === null ? null : { ...key, closedBefore: closedBefore[i] }));
    });
    // Once committed (docs/operations.md#metrics).
    this.metrics?.recordAbandonedAttempts(abandoned);
    return begun;
  }

  private async finishBatch(batch: FinishedAttempt[]): Promise<Array<AttemptRecord | null>> {
    const rolled: RolledAttempt[] = [];
    const finished = await this.dataSource.transaction(async (manager) => {
      rolled.length = 0;
      const rows = await this.repository.finishAttempts(manager, batch);
      const recorded = batch.filter((a) => rows.has(a.id));
      await this.deliveries.moveOn(
        manager,
        recorded
          .filter((a) => a.deliveryId !== null)
          .map((a) => ({ deliveryId: a.deliveryId!, next: a.next })),
      );
      await this.endpoints.countAttempts(
        manager,
        recorded.map((a) => ({
          endpointId: a.endpointId,
          attemptedAt: rows.get(a.id)!.attempted_at,
          durationMs: a.result.durationMs,
          success: a.result.success,
        })),
      );
      await this.rollups.record(
        manager,
        rollUp(
          recorded.map((a): RolledAttempt => {
            const attemptedAt = rows.get(a.id)!.attempted_at;
            const firstSuccess = a.result.success && a.eventCreatedAt;
            const entry: RolledAttempt = {
              endpointId: a.endpointId,
              attemptedAt,
              durationMs: a.result.durationMs,
              success: a.result.success,
              statusCode: a.result.statusCode,
              error: a.result.error,
              lagMs: firstSuccess
                ? Math.max(
                    0,
                    attemptedAt.getTime() + a.result.durationMs - a.eventCreatedAt!.getTime(),
                  )
                : null,
            };
            rolled.push(entry);
            return entry;
          }),
        ),
      );
      return rows;
    });
    // Once committed, so that each attempt counts once (docs/operations.md#metrics).
    this.metrics?.recordAttempts(rolled);
    for (const a of batch) {
      if (!finished.has(a.id)) {
        this.logger.warn(
          `Attempt ${a.id} (${a.messageId}) had been closed as of unknown outcome before its result (${a.result.success ? 'success' : a.result.error}) could be recorded`,
        );
      }
    }
    return batch.map((a) => finished.get(a.id) ?? null);
  }

  private async closeUnfinished(
    manager: EntityManager,
    scope: number[] | null,
    olderThanMs: number,
  ): Promise<ClosedAttempt[]> {
    const closed = await this.repository.closeUnfinished(
      manager,
      scope,
      olderThanMs,
      this.config.webhookTimeoutMs,
      CLOSE_BATCH,
    );
    await this.deliveries.moveOn(
      manager,
      closed
        .filter((c) => c.deliveryId !== null)
        .map((c) => ({ deliveryId: c.deliveryId!, next: null })),
    );
    if (closed.length > 0) {
      await this.endpoints.countAttempts(manager, closed);
      await this.rollups.record(
        manager,
        rollUp(
          closed.map((c) => ({
            ...c,
            statusCode: null,
            error: UNKNOWN_OUTCOME,
            lagMs: null,
          })),
        ),
      );
      this.logger.warn(`Closed ${closed.length} attempt(s) left unfinished by a stopped process`);
    }
    return closed;
  }

  /** Runs `write` again while PostgreSQL is unreachable, for up to {@link RESULT_RETRY_WINDOW_MS}. */
  private async withRetries<R>(write: () => Promise<R>): Promise<R> {
    const deadline = Date.now() + RESULT_RETRY_WINDOW_MS;
    for (let delay = 100; ; delay = Math.min(delay * 2, RESULT_RETRY_MAX_DELAY_MS)) {
      try {
        return await write();
      } catch (error) {
        if (!isDatabaseUnavailableError(error) || Date.now() + delay > deadline) throw error;
        this.logger.warn(
          `Could not record attempt results (${(error as Error).message}); retrying in ${delay} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
