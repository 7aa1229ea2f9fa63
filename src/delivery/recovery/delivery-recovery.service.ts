import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLog, SYSTEM_ACTOR, type AuditActor } from '../../audit';
import { InvalidInputError, NotFoundError, StateConflictError } from '../../common/domain-error';
import { DeliveryTargets, WebhookEndpointAdmin } from '../../webhooks';
import { parseInstant } from '../attempts';
import { RECOVERY_SCOPES, type RecoveryScope } from './delivery-recovery.entity';
import {
  DeliveryRecoveryRepository,
  type MovedDelivery,
  type RecoveryRecord,
} from './delivery-recovery.repository';
import { Deliveries, type QueuedDelivery } from '../deliveries';

/** How many of an endpoint's recoveries {@link DeliveryRecoveries.list} answers. */
/** A recovery as the dashboard shows it (docs/dashboard.md#bulk-recovery): its record. */
export type DeliveryRecoveryView = RecoveryRecord;

export const RECOVERY_LIST_LIMIT = 10;

/**
 * What a recovery since `since` would send again: the endpoint's deliveries created at or after
 * it that are `failed`, and those `pending` with at least one failed attempt, waiting on their
 * next retry (a recovery of either scope moves that retry to now), and those `skipped` or
 * `dropped` (a replay, scope `missed`, only).
 */
export interface RecoveryPreview {
  since: Date;
  failed_count: number;
  retrying_count: number;
  skipped_count: number;
}

/**
 * Bulk recovery of an endpoint's failed deliveries, and of those waiting on a retry
 * (docs/webhooks.md#bulk-recovery), and the
 * replay of every delivery it missed while disabled, the same recovery with the scope `missed`
 * (docs/webhooks.md#replaying-missed-deliveries): preview, start, list and cancel. Starting only
 * records the recovery; the delivery worker's `DeliveryRecoveryRunner` moves its deliveries to
 * `pending` batch by batch. Ids are taken as given: the caller scopes the endpoint (and a
 * recovery's endpoint) to its account first. A start or a cancel is recorded in the audit log
 * under the caller's `AuditActor`, in its own transaction
 * (docs/architecture.md#who-writes-the-audit-log); without an actor nothing is recorded.
 */
@Injectable()
export class DeliveryRecoveries {
  private readonly logger = new Logger(DeliveryRecoveries.name);

  constructor(
    private readonly repository: DeliveryRecoveryRepository,
    private readonly deliveries: Deliveries,
    private readonly targets: DeliveryTargets,
    private readonly admin: WebhookEndpointAdmin,
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * How many of the endpoint's deliveries a recovery since `since` would send again now: those
   * `failed`, those waiting on a retry (`retrying_count`), and those `skipped` or `dropped`
   * (counted in `skipped_count`; a replay only).
   * @param since an ISO 8601 date-time with a zone, not in the future.
   * @throws InvalidInputError (field `since`) for anything else.
   */
  async preview(endpointId: number, since: unknown): Promise<RecoveryPreview> {
    const at = parseSince(since);
    const { failed, retrying, skipped } = await this.repository.countMissedSince(endpointId, at);
    return { since: at, failed_count: failed, retrying_count: retrying, skipped_count: skipped };
  }

  /**
   * Starts a recovery of the endpoint's deliveries of `scope` created at or after `since`
   * (those with an id up to the highest counted now), unless one is running: `failed` ones and
   * those waiting on a retry, or with `missed` also those `skipped` or `dropped`.
   * @param since as for {@link preview}.
   * @param scope `failed` (the default, when undefined) or `missed`.
   * A new recovery is recorded as `delivery.bulk_redeliver` (scope `failed`) or
   * `delivery.replay_missed` (`missed`) on the endpoint, `{recovery_id, since, total}`, in the
   * transaction that inserts it.
   * @returns the new recovery (`started` true; already `done` when there was nothing to send),
   *   or the endpoint's running recovery, whatever its scope (`started` false): at most one runs
   *   per endpoint, which the database enforces, so two starts at once give one recovery.
   * @throws InvalidInputError for a bad `since` or `scope` (naming the field);
   *   StateConflictError for a disabled endpoint (its deliveries would be dropped, not sent);
   *   NotFoundError when the endpoint does not exist.
   */
  async start(
    endpointId: number,
    since: unknown,
    scope?: unknown,
    actor?: AuditActor,
  ): Promise<{ recovery: RecoveryRecord; started: boolean }> {
    const at = parseSince(since);
    const covered = parseScope(scope);
    const target = await this.targets.find(endpointId);
    if (!target) throw new NotFoundError(`webhook endpoint ${endpointId} does not exist`);
    const accountId = await this.admin.accountForEntry(actor, endpointId);
    // Two tries: a running recovery that ends between the refused insert and the read.
    for (let tries = 0; ; tries += 1) {
      const running = await this.repository.findRunning(endpointId);
      if (running) return { recovery: running, started: false };
      if (!target.isEnabled) {
        throw new StateConflictError(
          `webhook endpoint ${endpointId} is disabled: enable it before ${
            covered === 'missed'
              ? 'replaying its missed deliveries'
              : 'redelivering its failed deliveries'
          }`,
        );
      }
      const recovery = await this.dataSource.transaction(async (manager) => {
        const inserted = await this.repository.insert(endpointId, at, covered, manager);
        if (!inserted) return null;
        await this.audit.recordChange(
          actor,
          {
            accountId,
            action:
              inserted.scope === 'missed' ? 'delivery.replay_missed' : 'delivery.bulk_redeliver',
            objectType: 'endpoint',
            objectId: endpointId,
            details: {
              recovery_id: inserted.id,
              since: inserted.since.toISOString(),
              total: inserted.total,
            },
          },
          manager,
        );
        return inserted;
      });
      if (recovery) return { recovery, started: true };
      if (tries >= 1) throw new Error(`could not start a recovery of endpoint ${endpointId}`);
    }
  }

  /**
   * Starts the replay of what an endpoint missed since `since` (scope `missed`) for the service
   * itself, in the caller's transaction: an endpoint that came back by itself, enabled again in
   * that transaction (docs/webhooks.md#endpoints-that-come-back-by-themselves). The endpoint is
   * not read again (the caller has just enabled it). Recorded as `delivery.replay_missed` by the
   * actor `system` (`{recovery_id, since, total}`) on the endpoint, as an admin's replay is.
   * @param accountId the endpoint's account, for the audit entry.
   * @returns the new recovery's id, or that of the endpoint's recovery already running (at most
   *   one runs per endpoint; it goes on now that the endpoint is enabled).
   */
  async startReplayFor(
    manager: EntityManager,
    endpointId: number,
    since: Date,
    accountId: number | null,
  ): Promise<number | null> {
    const inserted = await this.repository.insert(endpointId, since, 'missed', manager);
    if (!inserted) return (await this.repository.findRunning(endpointId))?.id ?? null;
    await this.audit.record(
      {
        accountId,
        actor: SYSTEM_ACTOR,
        action: 'delivery.replay_missed',
        objectType: 'endpoint',
        objectId: endpointId,
        details: {
          recovery_id: inserted.id,
          since: inserted.since.toISOString(),
          total: inserted.total,
        },
      },
      manager,
    );
    return inserted.id;
  }

  /** The endpoint's last {@link RECOVERY_LIST_LIMIT} recoveries, newest first. */
  list(endpointId: number): Promise<RecoveryRecord[]> {
    return this.repository.listOfEndpoint(endpointId, RECOVERY_LIST_LIMIT);
  }

  /**
   * Recovery `id`, for the caller's ownership check through its `endpoint_id`.
   * @throws NotFoundError when there is none.
   */
  async get(id: number): Promise<RecoveryRecord> {
    const recovery = id > MAX_INT4 ? null : await this.repository.find(id);
    if (!recovery) throw recoveryNotFound(id);
    return recovery;
  }

  /**
   * Cancels recovery `id`: no further batch is taken (a batch being moved commits first);
   * deliveries already moved back to `pending` are still sent. Idempotent. When this call
   * cancels it, recorded as `delivery.bulk_redeliver_cancel` on its endpoint
   * (`{recovery_id, processed, total}`) in the same transaction.
   * @returns the recovery as it stands, and whether this call cancelled it (false when it had
   *   already ended, `done` or `cancelled`).
   * @throws NotFoundError when there is no such recovery.
   */
  async cancel(
    id: number,
    actor?: AuditActor,
  ): Promise<{ recovery: RecoveryRecord; cancelled: boolean }> {
    const endpointId = (await this.get(id)).endpoint_id;
    const accountId = await this.admin.accountForEntry(actor, endpointId);
    const cancelled = await this.dataSource.transaction(async (manager) => {
      const finished = await this.repository.finish(id, 'cancelled', manager);
      if (!finished) return null;
      await this.audit.recordChange(
        actor,
        {
          accountId,
          action: 'delivery.bulk_redeliver_cancel',
          objectType: 'endpoint',
          objectId: endpointId,
          details: { recovery_id: id, processed: finished.processed, total: finished.total },
        },
        manager,
      );
      return finished;
    });
    if (cancelled) return { recovery: cancelled, cancelled: true };
    return { recovery: await this.get(id), cancelled: false };
  }

  /**
   * One batch of the first ready recovery, in one transaction (the worker's
   * `DeliveryRecoveryRunner` calls it): a recovery whose endpoint is disabled is cancelled (sent
   * now, its deliveries would be dropped); otherwise up to `size` of its deliveries move back to
   * `pending`, and the recovery is done once none is left.
   * @param staleMs a claimed batch older than this is taken again (its worker stopped).
   * @returns the deliveries moved (empty when the recovery ended), or null when no recovery is
   *   ready.
   */
  takeBatch(size: number, staleMs: number): Promise<MovedDelivery[] | null> {
    return this.dataSource.transaction(async (manager) => {
      const recovery = await this.repository.claimNext(manager, staleMs);
      if (!recovery) return null;
      const target = await this.targets.find(recovery.endpointId);
      if (!target || !target.isEnabled) {
        await this.repository.finish(recovery.id, 'cancelled', manager);
        this.logger.log(`Recovery ${recovery.id} cancelled: its endpoint is disabled`);
        return [];
      }
      const batch = await this.repository.lockBatch(manager, recovery, size);
      if (!batch) {
        await this.repository.finish(recovery.id, 'done', manager);
        return [];
      }
      const { locked, through } = batch;
      const was = new Map(locked.map((row) => [row.id, row.status]));
      const moved: MovedDelivery[] = (
        await this.deliveries.moveBackToPending(
          manager,
          locked.map((row) => row.id),
        )
      )
        .map((row) => ({ ...row, retrying: was.get(row.id) === 'pending' }))
        .sort((a, b) => a.id - b.id);
      await this.repository.advance(manager, recovery.id, through, moved);
      return moved;
    });
  }

  /** Of `deliveries`, those still pending, due, and with no attempt under way. */
  dueWithoutAttempt(deliveries: QueuedDelivery[]): Promise<QueuedDelivery[]> {
    return this.repository.dueWithoutAttempt(deliveries);
  }
}

const MAX_INT4 = 2_147_483_647;

function recoveryNotFound(id: number): NotFoundError {
  return new NotFoundError(`recovery ${id} does not exist`);
}

/**
 * `since` of a recovery: an ISO 8601 date-time with a zone, not later than now.
 * @throws InvalidInputError (field `since`) otherwise.
 */
export function parseSince(value: unknown): Date {
  if (typeof value !== 'string') {
    throw InvalidInputError.field('since', 'must be an ISO 8601 date-time with a time zone');
  }
  const at = parseInstant('since', value);
  if (at.getTime() > Date.now())
    throw InvalidInputError.field('since', 'must not be in the future');
  return at;
}

/**
 * The scope of a recovery: `failed` when absent.
 * @throws InvalidInputError (field `scope`) for anything but `failed` or `missed`.
 */
export function parseScope(value: unknown): RecoveryScope {
  if (value === undefined) return 'failed';
  if (!(RECOVERY_SCOPES as readonly unknown[]).includes(value)) {
    throw InvalidInputError.field('scope', `must be one of ${RECOVERY_SCOPES.join(', ')}`);
  }
  return value as RecoveryScope;
}
