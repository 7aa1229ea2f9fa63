import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import DataLoader from 'dataloader';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditLog, SYSTEM_ACTOR } from '../audit';
import { CampaignsService } from '../campaigns';
import { MAX_INT4 } from '../common/ids';
import { AppConfig } from '../config/app-config';
import type { CustomHeaderToSend } from './custom-headers';
import { compileFilter, type CompiledFilter } from './payload-filter';
import { SigningSecretBox } from './signing-secrets.service';
import type { EndpointOrdering, FailingReason } from './webhook-endpoint.entity';
import { nextProbeAt } from './recovery-probes';
import {
  WebhookEndpointsRepository,
  type HealthIncrement,
  type ProbeClaimRow,
} from './webhook-endpoints.repository';

/** What the delivery worker needs to send to an endpoint. */
export interface DeliveryTarget {
  id: number;
  url: string;
  isEnabled: boolean;
  /**
   * Plaintext signing keys, `whsec_` secrets or `whsk_` ed25519 secret keys
   * (docs/webhooks.md#asymmetric-signatures): the current one, then the previous one while it is
   * still valid, each of either scheme.
   */
  secrets: string[];
  /**
   * Its custom headers with their values in clear, in order (docs/webhooks.md#custom-headers):
   * a secret one's value must never be logged or stored as is.
   */
  headers: CustomHeaderToSend[];
  /** When it was read (ms since the epoch, taken before the query): see {@link DeliveryTargets.sendsTo}. */
  readAt: number;
  /** Most deliveries per second (docs/webhooks.md#throttling); null: unlimited. */
  maxDeliveriesPerSecond: number | null;
  /** Most attempts in flight at once; null: unlimited. */
  maxInFlight: number | null;
  /** Its deliveries' order (docs/webhooks.md#per-lead-ordering). */
  ordering: EndpointOrdering;
  /**
   * Its transformation in force (docs/webhooks.md#transformations): the code, and its version
   * (recorded on each attempt it shapes); null: requests are sent as the event is.
   */
  transformation: EndpointTransformation | null;
}

/** An endpoint's transformation in force: one saved version of its code. */
export interface EndpointTransformation {
  version: number;
  code: string;
}

/** An endpoint of a campaign as the outbox sees it when an event is recorded. */
export interface Subscriber {
  id: number;
  /** The event types it subscribes to. */
  subscribedEvents: string[];
  /** False: its deliveries are recorded as `skipped`, never sent. */
  isEnabled: boolean;
  /** `per_lead`: its deliveries of events that name a lead carry the lead, to keep their order. */
  ordering: EndpointOrdering;
  /**
   * Its payload filter, compiled (docs/webhooks.md#payload-filters): an event it does not match
   * gets no delivery to it. Null: every event of its subscribed types.
   */
  filter: CompiledFilter | null;
}

/** The attempt that was answered 410 Gone, for the audit entry ({@link DeliveryTargets.disableGone}). */
export interface GoneAnswer {
  attemptId: number;
  /** The `webhook-id` sent. */
  webhookId: string;
  /** Null for a test message. */
  deliveryId: number | null;
}

/**
 * A recovery probe a worker claimed (docs/webhooks.md#endpoints-that-come-back-by-themselves):
 * the endpoint, and the claim its outcome must match.
 */
export type ProbeClaim = ProbeClaimRow;

/** The probe that was answered, for the endpoint's record and audit entry. */
export interface ProbeAnswer {
  attemptId: number;
  /** The ping's `webhook-id` (`ping_<uuid>`). */
  webhookId: string;
  /** When the probe was sent. */
  attemptedAt: Date;
}

/** What {@link DeliveryTargets.recoverByProbe} did. */
export interface ProbeRecovery {
  accountId: number | null;
  campaignId: number;
  url: string;
  /** The `disabled_at` the endpoint had: the replay's `since`. */
  since: Date;
  /** Probes sent, the successful one included. */
  probes: number;
  /** The replay of what it missed (or the recovery already running); null when none runs. */
  recoveryId: number | null;
}

/** How long this process remembers an endpoint it disabled as gone, in ms (reads older are stale). */
const GONE_MEMORY_MS = 60 * 60 * 1000;

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
 * secrets to send, which endpoints an event goes to, the health counters each attempt adds
 * to, and disabling an endpoint that answered 410 Gone. The only way other modules reach the
 * `webhook_endpoint` table.
 */
@Injectable()
export class DeliveryTargets {
  private readonly logger = new Logger(DeliveryTargets.name);
  /**
   * Endpoints this process saw answer 410 Gone, with when it disabled them (ms since the
   * epoch): a target read before that time is stale ({@link sendsTo}), however it was kept (a
   * batch job reads its endpoint once for all its deliveries).
   */
  private readonly goneAt = new Map<number, number>();
  /** The {@link disableGone} write under way per endpoint, which concurrent calls join. */
  private readonly disabling = new Map<number, Promise<boolean>>();
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
    private readonly campaigns: CampaignsService,
    private readonly audit: AuditLog,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /**
   * The URL, state, valid secrets and custom headers of an endpoint, or null when it does not
   * exist.
   */
  find(id: number): Promise<DeliveryTarget | null> {
    return id > MAX_INT4 ? Promise.resolve(null) : this.targets.load(id);
  }

  /**
   * Whether a scheduled attempt may still be sent to `target`: it was enabled when read, and
   * this process has not disabled it as gone since (docs/webhooks.md#disabled-endpoints).
   * Checked right before each scheduled attempt, so the deliveries of a batch that one of them
   * found gone are dropped, not sent.
   */
  sendsTo(target: DeliveryTarget): boolean {
    if (!target.isEnabled) return false;
    const goneAt = this.goneAt.get(target.id);
    return goneAt === undefined || goneAt < target.readAt;
  }

  /**
   * Endpoint `id` answered an attempt with 410 Gone (docs/webhooks.md#disabled-endpoints): from
   * now on this process sends it no scheduled attempt ({@link sendsTo}), and, if it is still
   * enabled, it is disabled with the reason `gone` and an `endpoint.disable` entry by the actor
   * `system` is added to the audit log, in one transaction. An endpoint already disabled keeps
   * its reason and time. Concurrent calls for one endpoint (a batch's attempts answered
   * together) share one write.
   *
   * Never throws: a failure to write (PostgreSQL unreachable) is logged, the endpoint stays
   * enabled, and its next 410 tries again.
   * @returns whether this call (or the one it joined) disabled it.
   */
  disableGone(id: number, answer: GoneAnswer): Promise<boolean> {
    const seenAt = Date.now();
    this.forgetOldGone(seenAt);
    this.goneAt.set(id, seenAt);
    const running = this.disabling.get(id);
    if (running) return running;
    const done = this.writeGone(id, answer, seenAt).finally(() => this.disabling.delete(id));
    this.disabling.set(id, done);
    return done;
  }

  private async writeGone(id: number, answer: GoneAnswer, seenAt: number): Promise<boolean> {
    try {
      // The account first, outside the transaction: the endpoint's campaign never changes, and
      // the transaction then needs no second connection while it holds the endpoint's row.
      const endpoint = await this.repository.findById(id);
      if (!endpoint?.isEnabled) return false;
      const accountId = await this.campaigns.accountOf(endpoint.campaignId);
      const disabled = await this.dataSource.transaction(async (manager) => {
        const row = await this.repository.disableIfEnabled(manager, id, 'gone');
        if (!row) return false;
        await this.audit.record(
          {
            accountId,
            actor: SYSTEM_ACTOR,
            action: 'endpoint.disable',
            objectType: 'endpoint',
            objectId: id,
            details: {
              reason: 'gone',
              status_code: 410,
              url: row.url,
              attempt_id: answer.attemptId,
              webhook_id: answer.webhookId,
              delivery_id: answer.deliveryId,
            },
          },
          manager,
        );
        return true;
      });
      // Reads that began before the commit may still have seen it enabled.
      this.goneAt.set(id, Math.max(seenAt, Date.now()));
      if (disabled) this.logger.warn(`Endpoint ${id} answered 410 Gone: disabled`);
      return disabled;
    } catch (error) {
      // Still enabled as far as we know: a stale target may send again, and its 410 retries this.
      this.goneAt.delete(id);
      this.logger.error(
        `Endpoint ${id} answered 410 Gone but could not be disabled (${(error as Error).message}); its next 410 tries again`,
      );
      return false;
    }
  }

  /** The endpoints marked failing (docs/webhooks.md#failing-endpoints), by id. */
  failingEndpoints(): Promise<
    Array<{ id: number; failingSince: Date; failingReason: FailingReason }>
  > {
    return this.repository.findFailing();
  }

  /**
   * A change of an endpoint's failing state (docs/webhooks.md#failing-endpoints), with its
   * audit entry by the actor `system`, in one transaction: `failing` marks an enabled endpoint
   * failing for `reason`, `recovered` clears the mark, `disable` disables a failing endpoint
   * with the reason `auto`. `details` (the figures that decided) go into the audit entry.
   * @returns the endpoint's account, campaign and URL when it changed anything; null when it
   *   did not (already in that state, or deleted meanwhile).
   */
  async changeFailingState(
    id: number,
    change:
      { kind: 'failing'; reason: FailingReason } | { kind: 'recovered' } | { kind: 'disable' },
    details: Record<string, unknown>,
  ): Promise<{ accountId: number | null; campaignId: number; url: string } | null> {
    const endpoint = await this.repository.findById(id);
    if (!endpoint) return null;
    // The account first, outside the transaction (as writeGone does).
    const accountId = await this.campaigns.accountOf(endpoint.campaignId);
    return this.dataSource.transaction(async (manager) => {
      const row =
        change.kind === 'failing'
          ? await this.repository.markFailing(manager, id, change.reason)
          : change.kind === 'recovered'
            ? await this.repository.clearFailing(manager, id)
            : await this.repository.disableIfEnabled(
                manager,
                id,
                'auto',
                this.config.webhookRecoveryProbe.firstMs,
              );
      if (!row) return null;
      await this.audit.record(
        {
          accountId,
          actor: SYSTEM_ACTOR,
          action:
            change.kind === 'failing'
              ? 'endpoint.failing'
              : change.kind === 'recovered'
                ? 'endpoint.recovered'
                : 'endpoint.disable',
          objectType: 'endpoint',
          objectId: id,
          details: {
            ...(change.kind === 'failing' ? { reason: change.reason } : {}),
            ...(change.kind === 'disable' ? { reason: 'auto' } : {}),
            url: row.url,
            ...details,
          },
        },
        manager,
      );
      return { accountId, campaignId: row.campaignId, url: row.url };
    });
  }

  /**
   * Claims the most overdue recovery probe, if one is due
   * (docs/webhooks.md#endpoints-that-come-back-by-themselves): an endpoint disabled `auto`
   * that opted in, whose next probe time has passed. The claim holds for the attempt's time
   * limit plus a minute; two workers never claim the same probe.
   * @returns the claim, or null when no probe is due.
   */
  claimDueProbe(): Promise<ProbeClaim | null> {
    return this.repository.claimDueProbe(this.config.webhookTimeoutMs + 60_000);
  }

  /**
   * Records a claimed probe that failed (not a 2xx, not a 410): one more probe, and the next
   * one due on the back-off, or none when the probing window is over (given up now).
   * @returns when the next probe is due (`next` null: probing gave up); null when the claim no
   *   longer held (the endpoint was enabled, disabled otherwise or opted out meanwhile).
   */
  async probeFailed(claim: ProbeClaim, answer: ProbeAnswer): Promise<{ next: Date | null } | null> {
    const next = nextProbeAt(
      claim.probingSince,
      claim.probeCount + 1,
      new Date(),
      this.config.webhookRecoveryProbe,
    );
    const changed = await this.repository.recordFailedProbe(
      claim.endpointId,
      claim.token,
      answer.attemptedAt,
      next,
    );
    return changed ? { next } : null;
  }

  /**
   * A claimed probe answered 410 Gone: the endpoint's reason becomes `gone`, its probing ends,
   * and an `endpoint.disable` entry by the actor `system` (`{reason: "gone", status_code: 410,
   * url, attempt_id, webhook_id, delivery_id: null, previous_reason: "auto"}`) is added to the
   * audit log, in one transaction (docs/webhooks.md#endpoints-that-come-back-by-themselves).
   * @returns whether it changed the endpoint (false when the claim no longer held).
   */
  async probeGone(claim: ProbeClaim, answer: ProbeAnswer): Promise<boolean> {
    const accountId = await this.campaigns.accountOf(claim.campaignId);
    return this.dataSource.transaction(async (manager) => {
      const row = await this.repository.goneAfterProbe(manager, claim.endpointId, claim.token);
      if (!row) return false;
      await this.audit.record(
        {
          accountId,
          actor: SYSTEM_ACTOR,
          action: 'endpoint.disable',
          objectType: 'endpoint',
          objectId: claim.endpointId,
          details: {
            reason: 'gone',
            status_code: 410,
            url: row.url,
            attempt_id: answer.attemptId,
            webhook_id: answer.webhookId,
            delivery_id: null,
            previous_reason: 'auto',
          },
        },
        manager,
      );
      return true;
    });
  }

  /**
   * A claimed probe succeeded (docs/webhooks.md#endpoints-that-come-back-by-themselves): in one
   * transaction, the endpoint is enabled again (its reason and time kept as
   * `last_disabled_reason` and `last_disabled_at`, as enabling by hand does), `startReplay`
   * starts the replay of what it missed since the `disabled_at` it had, in that transaction, and
   * an `endpoint.recovered` entry by the actor `system` records `{reason: "probe", url,
   * attempt_id, webhook_id, since, recovery_id, probes}`. Only while the claim holds, so two
   * workers never do it twice.
   * @param startReplay starts the replay in the given transaction, since the given time, for the
   *   given account's audit log; answers its recovery's id (or that of the recovery already
   *   running), or null.
   * @returns what it did; null when the claim no longer held (nothing changed).
   */
  async recoverByProbe(
    claim: ProbeClaim,
    answer: ProbeAnswer,
    startReplay: (
      manager: EntityManager,
      since: Date,
      accountId: number | null,
    ) => Promise<number | null>,
  ): Promise<ProbeRecovery | null> {
    const accountId = await this.campaigns.accountOf(claim.campaignId);
    return this.dataSource.transaction(async (manager) => {
      const row = await this.repository.enableAfterProbe(
        manager,
        claim.endpointId,
        claim.token,
        answer.attemptedAt,
      );
      if (!row) return null;
      const recoveryId = await startReplay(manager, row.disabledAt, accountId);
      await this.audit.record(
        {
          accountId,
          actor: SYSTEM_ACTOR,
          action: 'endpoint.recovered',
          objectType: 'endpoint',
          objectId: claim.endpointId,
          details: {
            reason: 'probe',
            url: row.url,
            attempt_id: answer.attemptId,
            webhook_id: answer.webhookId,
            since: row.disabledAt.toISOString(),
            recovery_id: recoveryId,
            probes: row.probes,
          },
        },
        manager,
      );
      return {
        accountId,
        campaignId: row.campaignId,
        url: row.url,
        since: row.disabledAt,
        probes: row.probes,
        recoveryId,
      };
    });
  }

  private forgetOldGone(now: number): void {
    for (const [id, at] of this.goneAt) {
      if (at < now - GONE_MEMORY_MS) this.goneAt.delete(id);
    }
  }

  private async findNow(ids: readonly number[]): Promise<Array<DeliveryTarget | null>> {
    const readAt = Date.now();
    const rows = await this.repository.findTargets(ids);
    const byId = new Map(
      rows.map((row) => {
        const secrets = [this.secretBox.decrypt(row.secret_encrypted)];
        if (row.previous_secret_encrypted && row.previous_secret_valid) {
          secrets.push(this.secretBox.decrypt(row.previous_secret_encrypted));
        }
        const headers = (row.custom_headers ?? []).map((h) =>
          h.secret
            ? { name: h.name, value: this.secretBox.decrypt(h.encrypted), secret: true }
            : { name: h.name, value: h.value, secret: false },
        );
        const target: DeliveryTarget = {
          id: row.id,
          url: row.url,
          isEnabled: row.is_enabled,
          secrets,
          headers,
          readAt,
          maxDeliveriesPerSecond: row.max_deliveries_per_second,
          maxInFlight: row.max_in_flight,
          ordering: row.ordering,
          transformation:
            row.transformation !== null && row.transformation_version !== null
              ? { version: row.transformation_version, code: row.transformation }
              : null,
        };
        return [row.id, target];
      }),
    );
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * The endpoints of a campaign with their subscriptions and whether each is enabled, read
   * inside the caller's transaction: an event gets a delivery for each endpoint subscribed to
   * its type when it is recorded, pending when the endpoint is enabled and `skipped` when it
   * is disabled (docs/webhooks.md#events).
   * Each endpoint's filter comes compiled, from a cache by its text (compiling is done once
   * per text per process).
   * @returns `[{id, subscribedEvents, isEnabled, ordering, filter}]` by id, disabled endpoints included.
   */
  async subscribers(manager: EntityManager, campaignId: number): Promise<Subscriber[]> {
    const rows = await this.repository.findSubscribers(manager, campaignId);
    return rows.map((row) => ({
      id: row.id,
      subscribedEvents: row.subscribedEvents,
      isEnabled: row.isEnabled,
      ordering: row.ordering,
      filter: row.filter === null ? null : compileFilter(row.filter),
    }));
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
