import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { EntityManager, IsNull, Not, Repository } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { MicroBatcher } from '../common/micro-batcher';
import {
  WebhookEndpoint,
  type DisabledReason,
  type EndpointOrdering,
  type FailingReason,
} from './webhook-endpoint.entity';
import type { StoredCustomHeader } from './custom-headers';

/** The columns a delivery attempt needs, secrets still encrypted. */
export interface TargetRow {
  id: number;
  url: string;
  is_enabled: boolean;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  /** Whether the previous secret's 24-hour overlap is still running (by the database's clock). */
  previous_secret_valid: boolean;
  /** The endpoint's custom headers as stored (docs/webhooks.md#custom-headers). */
  custom_headers: StoredCustomHeader[];
  /** Its throttle (docs/webhooks.md#throttling); null: unlimited. */
  max_deliveries_per_second: number | null;
  max_in_flight: number | null;
  /** Its deliveries' order (docs/webhooks.md#per-lead-ordering). */
  ordering: EndpointOrdering;
  /** Its transformation in force and its version (docs/webhooks.md#transformations); null: none. */
  transformation: string | null;
  transformation_version: number | null;
}

/**
 * A recovery probe a worker claimed ({@link WebhookEndpointsRepository.claimDueProbe},
 * docs/webhooks.md#endpoints-that-come-back-by-themselves).
 */
export interface ProbeClaimRow {
  endpointId: number;
  campaignId: number;
  url: string;
  /** The claim: the endpoint's new `next_probe_at` as PostgreSQL's text, to the microsecond. */
  token: string;
  /** Since when it is probed: the window's start. */
  probingSince: Date;
  /** Probes sent before this one. */
  probeCount: number;
}

/** Per-endpoint totals of a batch of attempts, for {@link WebhookEndpointsRepository.addToHealth}. */
export interface HealthIncrement {
  endpointId: number;
  attempts: number;
  successes: number;
  /** Sum of the attempts' durations, ms. */
  durationMs: number;
  /** Start of the batch's latest attempt, and whether it succeeded. */
  lastAt: Date;
  lastOk: boolean;
}

/** The columns of an endpoint's delivery health. */
interface HealthRow {
  id: number;
  campaign_id: number;
  url: string;
  is_enabled: boolean;
  total_deliveries: number;
  successful_deliveries: number;
  failed_deliveries: number;
  total_duration_ms: number;
  last_delivery_at: Date | null;
  last_delivery_is_successful: boolean | null;
}

/**
 * Every query on `webhook_endpoint` (docs/architecture.md#modules-and-tables). Ids are assumed
 * to fit PostgreSQL's integer: callers filter larger ones first. Methods taking an
 * `EntityManager` run in the caller's transaction.
 */
@Injectable()
export class WebhookEndpointsRepository {
  /**
   * Health reads made in one turn of the event loop share one query (docs/api.md#webhook-reads):
   * under load, one round trip serves every request that arrived together, each still seeing
   * counters read after it arrived.
   */
  private readonly healthReads = new MicroBatcher<number, HealthRow | undefined>((ids) =>
    this.readHealth(ids),
  );

  constructor(
    @InjectRepository(WebhookEndpoint) private readonly endpoints: Repository<WebhookEndpoint>,
  ) {}

  /** A new, unsaved entity with these fields. */
  build(fields: Partial<WebhookEndpoint>): WebhookEndpoint {
    return this.endpoints.create(fields);
  }

  /**
   * Inserts or updates an endpoint, in the caller's transaction when `manager` is given.
   * @throws the driver's foreign-key violation (23503) when its campaign does not exist.
   */
  save(endpoint: WebhookEndpoint, manager?: EntityManager): Promise<WebhookEndpoint> {
    return (manager?.getRepository(WebhookEndpoint) ?? this.endpoints).save(endpoint);
  }

  /** Endpoint `id`, or null. */
  findById(id: number): Promise<WebhookEndpoint | null> {
    return this.endpoints.findOneBy({ id });
  }

  /**
   * The custom headers of endpoint `id` as stored (secret values encrypted), read in the
   * caller's transaction (docs/webhooks.md#custom-headers); null when it does not exist.
   */
  async customHeadersOf(manager: EntityManager, id: number): Promise<StoredCustomHeader[] | null> {
    const rows: Array<{ custom_headers: StoredCustomHeader[] }> = await manager.query(
      'SELECT custom_headers FROM webhook_endpoint WHERE id = $1',
      [id],
    );
    return rows[0]?.custom_headers ?? null;
  }

  /** The campaign's endpoints ordered by id. */
  listOfCampaign(campaignId: number): Promise<WebhookEndpoint[]> {
    return this.endpoints.find({ where: { campaignId }, order: { id: 'ASC' } });
  }

  /** How many endpoints each of `campaignIds` has (campaigns without any are absent). */
  async countByCampaign(campaignIds: number[]): Promise<Map<number, number>> {
    const rows: Array<{ campaign_id: number; n: number }> = await this.endpoints.query(
      `SELECT campaign_id, count(*)::int AS n FROM webhook_endpoint
        WHERE campaign_id = ANY($1::int[]) GROUP BY campaign_id`,
      [campaignIds],
    );
    return new Map(rows.map((row) => [row.campaign_id, row.n]));
  }

  /**
   * Deletes endpoint `id` (its deliveries and attempts cascade), in the caller's transaction
   * when `manager` is given. @returns whether it existed.
   */
  async deleteById(id: number, manager?: EntityManager): Promise<boolean> {
    const result = await (manager?.getRepository(WebhookEndpoint) ?? this.endpoints).delete({ id });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Endpoint `endpointId` of `campaignId` with its health counters, or null: one indexed row
   * read as a plain query (the hottest read of the API).
   */
  async findHealth(campaignId: number, endpointId: number): Promise<WebhookEndpoint | null> {
    const row = await this.healthReads.push(endpointId);
    if (row === undefined || row.campaign_id !== campaignId) return null;
    return this.endpoints.create({
      id: row.id,
      url: row.url,
      isEnabled: row.is_enabled,
      totalDeliveries: row.total_deliveries,
      successfulDeliveries: row.successful_deliveries,
      failedDeliveries: row.failed_deliveries,
      totalDurationMs: row.total_duration_ms,
      lastDeliveryAt: row.last_delivery_at,
      lastDeliveryIsSuccessful: row.last_delivery_is_successful,
    });
  }

  /**
   * The health columns of the endpoints among `ids`, in their order (undefined where none):
   * one prepared statement on the pool, without TypeORM's query runner, for the public API's
   * hottest read.
   */
  private async readHealth(ids: number[]): Promise<Array<HealthRow | undefined>> {
    const pool = (this.endpoints.manager.connection.driver as PostgresDriver).master as Pool;
    const { rows } = await pool.query<HealthRow>({
      name: 'webhook_endpoint_health',
      text: `SELECT id, campaign_id, url, is_enabled, total_deliveries, successful_deliveries,
                    failed_deliveries, total_duration_ms, last_delivery_at,
                    last_delivery_is_successful
               FROM webhook_endpoint WHERE id = ANY($1::int[])`,
      values: [ids],
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }

  /** The delivery columns of the endpoints among `ids` that exist, in no particular order. */
  findTargets(ids: readonly number[]): Promise<TargetRow[]> {
    return this.endpoints.query(
      `SELECT id, url, is_enabled, secret_encrypted, previous_secret_encrypted,
              coalesce(previous_secret_expires_at > now(), false) AS previous_secret_valid,
              custom_headers,
              max_deliveries_per_second, max_in_flight, ordering,
              transformation, transformation_version
         FROM webhook_endpoint WHERE id = ANY($1::int[])`,
      [ids],
    );
  }

  /**
   * Disables endpoint `id` for `reason` as of now (`disabled_at` by the database's clock), in
   * the caller's transaction, only if it is enabled: an endpoint already disabled keeps its
   * reason and time. Its recovery probing starts afresh: for the reason `auto` with
   * `probeFirstMs` given and the endpoint opted in (`auto_recover`), probing starts now and the
   * first probe is due `probeFirstMs` later (docs/webhooks.md#endpoints-that-come-back-by-themselves);
   * otherwise it is not probed.
   * @returns its campaign, URL and `disabled_at`; null when it was not enabled or does not exist.
   */
  async disableIfEnabled(
    manager: EntityManager,
    id: number,
    reason: DisabledReason,
    probeFirstMs: number | null = null,
  ): Promise<{ campaignId: number; url: string; disabledAt: Date } | null> {
    const probed = reason === 'auto' && probeFirstMs !== null;
    // TypeORM answers `[rows, affected]` for an UPDATE.
    const [rows]: [Array<{ campaign_id: number; url: string; disabled_at: Date }>, number] =
      await manager.query(
        `UPDATE webhook_endpoint
          SET is_enabled = false, disabled_reason = $2, disabled_at = now(), updated_at = now(),
              failing_since = NULL, failing_reason = NULL,
              probing_since = CASE WHEN $3 AND auto_recover THEN now() END,
              next_probe_at = CASE WHEN $3 AND auto_recover
                                   THEN now() + $4::float8 * interval '1 millisecond' END,
              probe_count = 0, last_probe_at = NULL, probe_gave_up_at = NULL
        WHERE id = $1 AND is_enabled
    RETURNING campaign_id, url, disabled_at`,
        [id, reason, probed, probeFirstMs ?? 0],
      );
    const [row] = rows;
    return row ? { campaignId: row.campaign_id, url: row.url, disabledAt: row.disabled_at } : null;
  }

  /**
   * Claims the endpoint whose recovery probe is most overdue
   * (docs/webhooks.md#endpoints-that-come-back-by-themselves): disabled `auto`, opted in, its
   * `next_probe_at` passed. The claim moves `next_probe_at` on by `leaseMs`, in one statement
   * that skips rows another worker holds, so two workers never claim one probe; a worker that
   * stops mid-probe leaves the probe due again once the lease ends.
   * @returns the claim, whose `token` (the new `next_probe_at`, exact to the microsecond) the
   *   probe's outcome must match; null when no probe is due.
   */
  async claimDueProbe(leaseMs: number): Promise<ProbeClaimRow | null> {
    const [rows]: [ProbeClaimRow[], number] = await this.endpoints.query(
      `UPDATE webhook_endpoint e
          SET next_probe_at = now() + $1::float8 * interval '1 millisecond'
        WHERE e.id = (SELECT id FROM webhook_endpoint
                       WHERE next_probe_at <= now() AND NOT is_enabled
                         AND disabled_reason = 'auto' AND auto_recover
                       ORDER BY next_probe_at, id
                       LIMIT 1
                       FOR UPDATE SKIP LOCKED)
          AND e.next_probe_at <= now() AND NOT e.is_enabled AND e.disabled_reason = 'auto'
          AND e.auto_recover
    RETURNING e.id AS "endpointId", e.campaign_id AS "campaignId", e.url,
              e.next_probe_at::text AS token, e.probing_since AS "probingSince",
              e.probe_count AS "probeCount"`,
      [leaseMs],
    );
    return rows[0] ?? null;
  }

  /**
   * Records a failed probe of a claimed endpoint: one more probe, sent at `probedAt`, and the
   * next one due at `nextAt`, or, with `nextAt` null, no more (given up now). Only while the
   * claim `token` still holds and the endpoint is still disabled `auto`.
   * @returns whether it changed the endpoint.
   */
  async recordFailedProbe(
    id: number,
    token: string,
    probedAt: Date,
    nextAt: Date | null,
  ): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.endpoints.query(
      `UPDATE webhook_endpoint
          SET probe_count = probe_count + 1, last_probe_at = $3, next_probe_at = $4,
              probe_gave_up_at = CASE WHEN $4::timestamptz IS NULL THEN now() END
        WHERE id = $1 AND next_probe_at = $2::timestamptz AND NOT is_enabled
          AND disabled_reason = 'auto'`,
      [id, token, probedAt, nextAt],
    );
    return affected > 0;
  }

  /**
   * A claimed endpoint whose probe was answered 410 Gone: its reason becomes `gone` (its
   * `disabled_at` kept) and it is no longer probed, in the caller's transaction, only while the
   * claim `token` holds and it is still disabled `auto`.
   * @returns its campaign and URL; null when nothing changed.
   */
  async goneAfterProbe(
    manager: EntityManager,
    id: number,
    token: string,
  ): Promise<{ campaignId: number; url: string } | null> {
    return this.changedRow(
      await manager.query(
        `UPDATE webhook_endpoint
            SET disabled_reason = 'gone', updated_at = now(), probing_since = NULL,
                next_probe_at = NULL, probe_count = 0, last_probe_at = NULL,
                probe_gave_up_at = NULL
          WHERE id = $1 AND next_probe_at = $2::timestamptz AND NOT is_enabled
            AND disabled_reason = 'auto'
      RETURNING campaign_id, url`,
        [id, token],
      ),
    );
  }

  /**
   * Enables a claimed endpoint whose probe succeeded, in the caller's transaction, only while
   * the claim `token` holds and it is still disabled `auto`: clears its reason and time,
   * keeping them as `last_disabled_reason` and `last_disabled_at` (as enabling by hand does),
   * ends its probing (`probe_count` and `last_probe_at` stay, this probe counted).
   * @returns its campaign, URL, the `disabled_at` it had and how many probes were sent, this one
   *   included; null when nothing changed.
   */
  async enableAfterProbe(
    manager: EntityManager,
    id: number,
    token: string,
    probedAt: Date,
  ): Promise<{ campaignId: number; url: string; disabledAt: Date; probes: number } | null> {
    // The right-hand sides of SET read the row as it was.
    const [rows]: [
      Array<{ campaign_id: number; url: string; disabled_at: Date; probes: number }>,
      number,
    ] = await manager.query(
      `UPDATE webhook_endpoint
          SET is_enabled = true, disabled_reason = NULL, disabled_at = NULL,
              last_disabled_at = disabled_at, last_disabled_reason = disabled_reason,
              updated_at = now(), probing_since = NULL, next_probe_at = NULL,
              probe_count = probe_count + 1, last_probe_at = $3, probe_gave_up_at = NULL
        WHERE id = $1 AND next_probe_at = $2::timestamptz AND NOT is_enabled
          AND disabled_reason = 'auto'
    RETURNING campaign_id, url, last_disabled_at AS disabled_at, probe_count AS probes`,
      [id, token, probedAt],
    );
    const [row] = rows;
    return row
      ? {
          campaignId: row.campaign_id,
          url: row.url,
          disabledAt: row.disabled_at,
          probes: row.probes,
        }
      : null;
  }

  /**
   * Marks endpoint `id` failing for `reason` as of now, in the caller's transaction, only if it
   * is enabled and not failing already.
   * @returns its campaign and URL; null when nothing changed.
   */
  async markFailing(
    manager: EntityManager,
    id: number,
    reason: FailingReason,
  ): Promise<{ campaignId: number; url: string } | null> {
    return this.changedRow(
      await manager.query(
        `UPDATE webhook_endpoint SET failing_since = now(), failing_reason = $2
          WHERE id = $1 AND is_enabled AND failing_since IS NULL
      RETURNING campaign_id, url`,
        [id, reason],
      ),
    );
  }

  /**
   * Marks endpoint `id` no longer failing, in the caller's transaction.
   * @returns its campaign and URL; null when it was not failing.
   */
  async clearFailing(
    manager: EntityManager,
    id: number,
  ): Promise<{ campaignId: number; url: string } | null> {
    return this.changedRow(
      await manager.query(
        `UPDATE webhook_endpoint SET failing_since = NULL, failing_reason = NULL
          WHERE id = $1 AND failing_since IS NOT NULL
      RETURNING campaign_id, url`,
        [id],
      ),
    );
  }

  /** The endpoints marked failing, with since when and why. */
  findFailing(): Promise<Array<{ id: number; failingSince: Date; failingReason: FailingReason }>> {
    return this.endpoints.find({
      where: { failingSince: Not(IsNull()) },
      select: { id: true, failingSince: true, failingReason: true },
      order: { id: 'ASC' },
    }) as Promise<Array<{ id: number; failingSince: Date; failingReason: FailingReason }>>;
  }

  /** The row of an `UPDATE … RETURNING campaign_id, url` (TypeORM answers `[rows, affected]`). */
  private changedRow(result: unknown): { campaignId: number; url: string } | null {
    const [rows] = result as [Array<{ campaign_id: number; url: string }>, number];
    const [row] = rows;
    return row ? { campaignId: row.campaign_id, url: row.url } : null;
  }

  /**
   * Every endpoint of a campaign, enabled or not, with its subscriptions and state, in the
   * caller's transaction, by id.
   */
  findSubscribers(
    manager: EntityManager,
    campaignId: number,
  ): Promise<
    Array<{
      id: number;
      subscribedEvents: string[];
      isEnabled: boolean;
      ordering: EndpointOrdering;
      filter: string | null;
    }>
  > {
    return manager.find(WebhookEndpoint, {
      where: { campaignId },
      select: { id: true, subscribedEvents: true, isEnabled: true, ordering: true, filter: true },
      order: { id: 'ASC' },
    });
  }

  /**
   * Adds attempt totals to the endpoints' health counters in one UPDATE, in the caller's
   * transaction. Rows are updated in id order (one lock order for concurrent batches). The
   * "last delivery" fields follow the latest `lastAt`, even when batches commit out of order.
   */
  async addToHealth(manager: EntityManager, increments: HealthIncrement[]): Promise<void> {
    const rows = [...increments].sort((a, b) => a.endpointId - b.endpointId);
    await manager.query(
      `UPDATE webhook_endpoint e SET
         total_deliveries = e.total_deliveries + a.n,
         successful_deliveries = e.successful_deliveries + a.ok,
         failed_deliveries = e.failed_deliveries + (a.n - a.ok),
         total_duration_ms = e.total_duration_ms + a.duration,
         last_delivery_is_successful = CASE WHEN e.last_delivery_at IS NULL OR e.last_delivery_at <= a.last_at
                                            THEN a.last_ok ELSE e.last_delivery_is_successful END,
         last_delivery_at = GREATEST(e.last_delivery_at, a.last_at)
       FROM unnest($1::int[], $2::int[], $3::int[], $4::float8[], $5::timestamptz[], $6::bool[])
            AS a(id, n, ok, duration, last_at, last_ok)
       WHERE e.id = a.id`,
      [
        rows.map((r) => r.endpointId),
        rows.map((r) => r.attempts),
        rows.map((r) => r.successes),
        rows.map((r) => r.durationMs),
        rows.map((r) => r.lastAt),
        rows.map((r) => r.lastOk),
      ],
    );
  }
}
