import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { NotFoundError } from '../../common/domain-error';
import { PeriodicJob } from '../../common/periodic-job';
import { AppConfig } from '../../config/app-config';
import {
  AccountNotifications,
  DeliveryTargets,
  type ProbeAnswer,
  type ProbeClaim,
} from '../../webhooks';
import { DeliveryStatsService } from '../analytics';
import { DeliveryService, GONE, type AttemptRecord } from '../attempts';
import { DeliveryRecoveries } from '../recovery';
import { WebhookSender } from '../sending';
import { sendOperationalMessage } from './operational-messages';

/** Most probes one pass sends before it yields to the timer again. */
export const PROBES_PER_PASS = 100;

/** What one probe came to (docs/webhooks.md#endpoints-that-come-back-by-themselves). */
export type ProbeOutcome =
  | { endpointId: number; kind: 'recovered'; recoveryId: number | null; probes: number }
  | { endpointId: number; kind: 'failed'; nextProbeAt: Date }
  | { endpointId: number; kind: 'gave_up' }
  | { endpointId: number; kind: 'gone' }
  /** The endpoint changed meanwhile (enabled, disabled by hand, opted out, deleted): nothing done. */
  | { endpointId: number; kind: 'lost' };

/**
 * Endpoints that come back by themselves (docs/webhooks.md#endpoints-that-come-back-by-themselves).
 * At start and every `WEBHOOK_MONITOR_INTERVAL_MS` each worker process claims the recovery
 * probes that are due, one at a time (a conditional UPDATE that skips rows another worker
 * holds: two workers never probe one endpoint at once), and sends each the signed ping of
 * docs/webhooks.md#test-events, which the delivery log shows as a ping and the endpoint's health
 * counts. On a 2xx the endpoint is enabled again, the replay of what it missed since it was
 * disabled starts, `endpoint.recovered` by the actor `system` goes to the audit log (one
 * transaction), and an `endpoint.recovered` operational message to the account's notification
 * URL. On a 410 it is disabled `gone` and no longer probed; on any other failure the next
 * probe is scheduled on the back-off (`WEBHOOK_RECOVERY_PROBE_*`), or probing gives up once
 * its window is over. Every change is conditional on the claim, so it happens once.
 */
@Injectable()
export class RecoveryProbeRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RecoveryProbeRunner.name);
  private readonly job: PeriodicJob<ProbeOutcome[]>;

  constructor(
    private readonly deliveries: DeliveryService,
    private readonly endpoints: DeliveryTargets,
    private readonly recoveries: DeliveryRecoveries,
    private readonly rollups: DeliveryStatsService,
    private readonly notifications: AccountNotifications,
    private readonly sender: WebhookSender,
    config: AppConfig,
  ) {
    this.job = new PeriodicJob({
      name: 'Recovery probes',
      intervalMs: config.webhookMonitorIntervalMs,
      runAtStart: true,
      logger: this.logger,
      tick: () => this.probeDue(),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /**
   * One pass: claims and sends the probes that are due, up to {@link PROBES_PER_PASS}, unless a
   * pass is under way in this process (then nothing). Never throws (a failure is logged; a
   * probe claimed but not finished is due again once its claim ends).
   * @returns what each probe came to, in order.
   */
  probeDue(): Promise<ProbeOutcome[]> {
    const outcomes: ProbeOutcome[] = [];
    return this.job.run(
      () => this.pass(outcomes),
      () => outcomes,
      () => [],
    );
  }

  private async pass(outcomes: ProbeOutcome[]): Promise<ProbeOutcome[]> {
    for (let n = 0; n < PROBES_PER_PASS && !this.job.stopped; n += 1) {
      const claim = await this.endpoints.claimDueProbe();
      if (!claim) break;
      outcomes.push(await this.probe(claim));
    }
    return outcomes;
  }

  private async probe(claim: ProbeClaim): Promise<ProbeOutcome> {
    const endpointId = claim.endpointId;
    let attempt: AttemptRecord;
    try {
      attempt = await this.deliveries.ping(endpointId);
    } catch (error) {
      if (error instanceof NotFoundError) return { endpointId, kind: 'lost' };
      throw error;
    }
    const answer: ProbeAnswer = {
      attemptId: attempt.id,
      webhookId: attempt.webhook_id,
      attemptedAt: new Date(attempt.attempted_at),
    };
    if (attempt.success) return this.recovered(claim, answer);
    if (attempt.status_code === GONE) {
      const gone = await this.endpoints.probeGone(claim, answer);
      if (gone) this.logger.warn(`Endpoint ${endpointId} answered its recovery probe 410 Gone`);
      return { endpointId, kind: gone ? 'gone' : 'lost' };
    }
    const recorded = await this.endpoints.probeFailed(claim, answer);
    if (!recorded) return { endpointId, kind: 'lost' };
    if (recorded.next) return { endpointId, kind: 'failed', nextProbeAt: recorded.next };
    this.logger.warn(`Endpoint ${endpointId}: recovery probing gave up, its window is over`);
    return { endpointId, kind: 'gave_up' };
  }

  private async recovered(claim: ProbeClaim, answer: ProbeAnswer): Promise<ProbeOutcome> {
    const endpointId = claim.endpointId;
    const recovery = await this.endpoints.recoverByProbe(claim, answer, (manager, since, account) =>
      this.recoveries.startReplayFor(manager, endpointId, since, account),
    );
    if (!recovery) return { endpointId, kind: 'lost' };
    this.logger.warn(
      `Endpoint ${endpointId} answered its recovery probe: enabled again, replaying what it missed since ${recovery.since.toISOString()}`,
    );
    if (recovery.accountId !== null) {
      const signals = (await this.rollups.failureSignals(new Map())).find(
        (s) => s.endpointId === endpointId,
      );
      const via = { notifications: this.notifications, sender: this.sender, logger: this.logger };
      await sendOperationalMessage(via, recovery.accountId, {
        type: 'endpoint.recovered',
        data: {
          endpoint_id: endpointId,
          campaign_id: recovery.campaignId,
          url: recovery.url,
          reason: 'probe',
          last_hour_attempts: signals?.hourAttempts ?? 0,
          last_hour_successes: signals?.hourSuccesses ?? 0,
          since: recovery.since.toISOString(),
          probes: recovery.probes,
          recovery_id: recovery.recoveryId,
        },
      });
    }
    return {
      endpointId,
      kind: 'recovered',
      recoveryId: recovery.recoveryId,
      probes: recovery.probes,
    };
  }
}
