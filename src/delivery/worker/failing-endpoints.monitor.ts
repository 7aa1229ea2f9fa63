import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PeriodicJob } from '../../common/periodic-job';
import { AppConfig } from '../../config/app-config';
import { AccountNotifications, DeliveryTargets } from '../../webhooks';
import type { FailingReason } from '../../webhooks';
import { DeliveryStatsService, type FailureSignals } from '../analytics';
import { WebhookSender } from '../sending';
import { sendOperationalMessage } from './operational-messages';

/** The last hour's attempts from which a failure rate counts (docs/webhooks.md#failing-endpoints). */
export const FAILURE_RATE_MIN_ATTEMPTS = 20;
/** The share of the last hour's attempts that must fail, strictly more than. */
export const FAILURE_RATE_THRESHOLD = 0.5;

/** What the rules decide for one endpoint. */
export type FailingDecision =
  | { kind: 'failing'; reason: FailingReason }
  | { kind: 'recovered' }
  | { kind: 'disable' }
  | { kind: 'none' };

/**
 * The failing-endpoint rules (docs/webhooks.md#failing-endpoints), pure: an endpoint not marked
 * failing becomes failing when every attempt of the last 24 hours failed (`no_success`) or
 * more than half of at least 20 attempts of the last hour did (`failure_rate`); a failing one
 * is disabled once it has been failing for `disableAfterMs` with no success since, and
 * recovers when neither rule holds and the last hour had a success.
 * @param failing since when it is marked failing (ms since the epoch); null when it is not.
 */
export function decide(
  signals: FailureSignals,
  failing: { since: number } | null,
  now: number,
  disableAfterMs: number,
): FailingDecision {
  const byRate =
    signals.hourAttempts >= FAILURE_RATE_MIN_ATTEMPTS &&
    signals.hourAttempts - signals.hourSuccesses > FAILURE_RATE_THRESHOLD * signals.hourAttempts;
  const stillFailing = signals.failingAllDay || byRate;
  if (failing === null) {
    if (!stillFailing) return { kind: 'none' };
    return { kind: 'failing', reason: signals.failingAllDay ? 'no_success' : 'failure_rate' };
  }
  if (
    now - failing.since >= disableAfterMs &&
    signals.successesSince === 0 &&
    signals.hourSuccesses === 0
  ) {
    return { kind: 'disable' };
  }
  if (!stillFailing && signals.hourSuccesses > 0) return { kind: 'recovered' };
  return { kind: 'none' };
}

/**
 * Applies the failing-endpoint rules to every endpoint with recent attempts, from the
 * rollups (docs/delivery-analytics.md): marks endpoints failing, clears the mark when they
 * recover, and disables with the reason `auto` those failing for `WEBHOOK_DISABLE_AFTER` with
 * no success since; each change with an audit entry by the actor `system`, and an
 * operational message (`endpoint.failing`, `endpoint.disabled`) to the account's
 * notification URL when it has one (docs/webhooks.md#operational-messages). Runs at start and
 * every `WEBHOOK_MONITOR_INTERVAL_MS` in each worker process; two workers at once change
 * each endpoint once (every change is conditional on the state it changes).
 */
@Injectable()
export class FailingEndpointMonitor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(FailingEndpointMonitor.name);
  private readonly job: PeriodicJob<Map<number, FailingDecision>>;

  constructor(
    private readonly rollups: DeliveryStatsService,
    private readonly endpoints: DeliveryTargets,
    private readonly notifications: AccountNotifications,
    private readonly sender: WebhookSender,
    private readonly config: AppConfig,
  ) {
    this.job = new PeriodicJob({
      name: 'Failing-endpoint check',
      intervalMs: config.webhookMonitorIntervalMs,
      runAtStart: true,
      logger: this.logger,
      tick: () => this.check(),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): void {
    void this.job.stop();
  }

  /**
   * One pass over the endpoints, unless one is under way (then no change). Never throws (a
   * failure is logged; the next pass tries again).
   * @returns the changes it made, by endpoint id (before the failure, for one that failed).
   */
  check(now = Date.now()): Promise<Map<number, FailingDecision>> {
    const changed = new Map<number, FailingDecision>();
    return this.job.run(
      () => this.pass(now, changed),
      () => changed,
      () => changed,
    );
  }

  private async pass(
    now: number,
    changed: Map<number, FailingDecision>,
  ): Promise<Map<number, FailingDecision>> {
    const failing = new Map(
      (await this.endpoints.failingEndpoints()).map((e) => [e.id, e.failingSince]),
    );
    for (const signals of await this.rollups.failureSignals(failing)) {
      const since = failing.get(signals.endpointId);
      const decision = decide(
        signals,
        since ? { since: since.getTime() } : null,
        now,
        this.config.webhookDisableAfterMs,
      );
      if (decision.kind === 'none') continue;
      const details = {
        last_hour_attempts: signals.hourAttempts,
        last_hour_successes: signals.hourSuccesses,
        ...(since ? { failing_since: since.toISOString() } : {}),
      };
      const endpoint = await this.endpoints.changeFailingState(
        signals.endpointId,
        decision,
        details,
      );
      if (!endpoint) continue;
      changed.set(signals.endpointId, decision);
      this.logger.warn(`Endpoint ${signals.endpointId}: ${describe(decision)}`);
      if (decision.kind !== 'recovered' && endpoint.accountId !== null) {
        const via = { notifications: this.notifications, sender: this.sender, logger: this.logger };
        await sendOperationalMessage(via, endpoint.accountId, {
          type: decision.kind === 'failing' ? 'endpoint.failing' : 'endpoint.disabled',
          data: {
            endpoint_id: signals.endpointId,
            campaign_id: endpoint.campaignId,
            url: endpoint.url,
            reason: decision.kind === 'failing' ? decision.reason : 'auto',
            last_hour_attempts: signals.hourAttempts,
            last_hour_successes: signals.hourSuccesses,
          },
        });
      }
    }
    return changed;
  }
}

function describe(decision: Exclude<FailingDecision, { kind: 'none' }>): string {
  switch (decision.kind) {
    case 'failing':
      return `failing (${decision.reason})`;
    case 'recovered':
      return 'recovered';
    case 'disable':
      return 'disabled (auto): failing with no success for WEBHOOK_DISABLE_AFTER';
  }
}
