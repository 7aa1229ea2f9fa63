import { Injectable, Optional } from '@nestjs/common';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CollectFunction,
} from 'prom-client';
import { AppConfig } from '../config/app-config';

/** Prefix of every metric the service defines (Node's runtime metrics keep prom-client's names). */
export const METRIC_PREFIX = 'campaign_api_';

/**
 * The class of a delivery attempt's outcome, the only label of
 * `campaign_api_delivery_attempts_total`: a 2xx in time, no answer in time, no connection, a
 * 3xx/4xx/5xx answer, or `other` (another status, a request that could not be signed, an
 * attempt whose process stopped before its result was recorded).
 */
export const ATTEMPT_OUTCOMES = [
  'success',
  'timeout',
  'connection_error',
  '3xx',
  '4xx',
  '5xx',
  'other',
] as const;
export type AttemptOutcomeClass = (typeof ATTEMPT_OUTCOMES)[number];

/** Where a batch of leads came from: the upload API, or a chunk of a spreadsheet import. */
export type LeadSource = 'api' | 'spreadsheet';

/** What {@link Metrics.attemptsFinished} needs of one recorded attempt. */
export interface FinishedAttemptSample {
  success: boolean;
  statusCode: number | null;
  error: string | null;
  /** From sending to the answer or the failure, in ms. */
  durationMs: number;
  /**
   * From the event being recorded to the end of this attempt, in ms, when this attempt is its
   * delivery's first success; null otherwise.
   */
  lagMs: number | null;
}

/** An upload's or a chunk's counts, as in the 202 body (docs/api.md#duplicates-and-counts). */
export interface LeadCounts {
  received_count: number;
  valid_count: number;
  invalid_count: number;
  duplicate_count: number;
}

/**
 * The outcome class of an attempt ({@link ATTEMPT_OUTCOMES}), from its status code, or from
 * the error text the sender records when there is none (`timed out …`).
 */
export function attemptOutcomeClass(attempt: {
  success: boolean;
  statusCode: number | null;
  error: string | null;
}): AttemptOutcomeClass {
  if (attempt.success) return 'success';
  const status = attempt.statusCode;
  if (status !== null) {
    if (status >= 300 && status < 400) return '3xx';
    if (status >= 400 && status < 500) return '4xx';
    if (status >= 500 && status < 600) return '5xx';
    return 'other';
  }
  const error = attempt.error ?? '';
  if (error.startsWith('timed out')) return 'timeout';
  if (error.startsWith('outcome unknown') || error.startsWith('could not sign')) return 'other';
  return 'connection_error';
}

/** `2xx` … `5xx` of an HTTP status (`1xx` for anything below 200, `5xx` above 599). */
export function statusClass(statusCode: number): string {
  const hundreds = Math.min(5, Math.max(1, Math.floor(statusCode / 100)));
  return `${hundreds}xx`;
}

/**
 * The process's Prometheus metrics (docs/operations.md#metrics): one prom-client registry per
 * application, the metrics the code records through this service's methods (HTTP requests,
 * leads, delivery attempts, rows of spreadsheet imports and recoveries), and gauges whose
 * value is read at scrape time by collectors registered with {@link gauge}. Feature modules
 * call the `record…` methods and never prom-client; every label has a small fixed set of
 * values (never a URL, an account, a campaign or a lead).
 *
 * Recording costs a few map look-ups a request or an attempt, and is done only when
 * `METRICS_PORT` is set (nothing would ever read the values otherwise; a `Metrics` built
 * without a config, in a unit test, records), as are Node's runtime metrics (event loop, heap,
 * GC).
 */
@Injectable()
export class Metrics {
  /** The registry the metrics server exposes. */
  readonly registry = new Registry();

  private readonly httpDuration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request of the public port, by route template, method and status class.',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly leadsReceived = this.leadCounter(
    'received',
    'Leads received in uploads and spreadsheet chunks.',
  );
  private readonly leadsValid = this.leadCounter('valid', 'Leads that passed validation.');
  private readonly leadsInvalid = this.leadCounter('invalid', 'Leads rejected by validation.');
  private readonly leadsDuplicate = this.leadCounter(
    'duplicate',
    'Leads that were duplicates of the batch or of the campaign.',
  );
  private readonly attempts = new Counter({
    name: `${METRIC_PREFIX}delivery_attempts_total`,
    help: 'Webhook delivery attempts recorded, by outcome class.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly attemptDuration = new Histogram({
    name: `${METRIC_PREFIX}delivery_attempt_duration_seconds`,
    help: 'Time from sending a webhook to its answer or failure.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly deliveryLag = new Histogram({
    name: `${METRIC_PREFIX}delivery_lag_seconds`,
    help: "Time from an event being recorded to the end of its delivery's first successful attempt.",
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 7200, 21600, 86400],
    registers: [this.registry],
  });
  private readonly spreadsheetRows = new Counter({
    name: `${METRIC_PREFIX}spreadsheet_import_rows_total`,
    help: 'Spreadsheet rows committed by the import runner of this process.',
    registers: [this.registry],
  });
  private readonly recoveredDeliveries = new Counter({
    name: `${METRIC_PREFIX}recovery_deliveries_total`,
    help: 'Deliveries moved back to pending by bulk recoveries and replays in this process.',
    registers: [this.registry],
  });
  private readonly throttleWaits = new Counter({
    name: `${METRIC_PREFIX}delivery_throttle_waits_total`,
    help: "Deliveries put back to wait on their endpoint's throttle, by the limit that held them (rate, in_flight).",
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  private readonly orderingHolds = new Counter({
    name: `${METRIC_PREFIX}delivery_ordering_holds_total`,
    help: 'Deliveries held behind an earlier pending delivery of their lead on an ordered endpoint.',
    registers: [this.registry],
  });
  /** Failures of the scrape-time look-ups (PostgreSQL, Redis); their gauges keep their last values. */
  readonly collectionErrors = new Counter({
    name: `${METRIC_PREFIX}metrics_collection_errors_total`,
    help: 'Scrape-time look-ups (database, queue) that failed; their gauges kept their last values.',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  /** Whether the `record…` methods record: `METRICS_PORT` is set (or no config was given). */
  readonly recording: boolean;

  constructor(@Optional() config?: AppConfig) {
    this.recording = config === undefined || config.metricsPort != null;
    if (config?.metricsPort != null) collectDefaultMetrics({ register: this.registry });
  }

  /** Whether `METRICS_PORT` asks for a metrics server (see `MetricsServer`). */
  static enabled(config: AppConfig): boolean {
    return config.metricsPort !== null;
  }

  /**
   * One answered HTTP request of the public port.
   * @param route the route's template (`/api/v1/leads/upload`, `/api/v1/webhooks/:campaignId/…`),
   *   or `unmatched` for a URL no route serves: never the raw URL.
   * @param seconds from the request's arrival to its answer.
   */
  recordHttpRequest(method: string, route: string, statusCode: number, seconds: number): void {
    if (!this.recording) return;
    this.httpDuration.observe({ method, route, status_class: statusClass(statusCode) }, seconds);
  }

  /** The counts of an upload or of a spreadsheet chunk, once committed. */
  recordLeads(source: LeadSource, counts: LeadCounts): void {
    if (!this.recording) return;
    this.leadsReceived.inc({ source }, counts.received_count);
    this.leadsValid.inc({ source }, counts.valid_count);
    this.leadsInvalid.inc({ source }, counts.invalid_count);
    this.leadsDuplicate.inc({ source }, counts.duplicate_count);
  }

  /** Attempts whose results were recorded (counted once each, after their transaction committed). */
  recordAttempts(attempts: readonly FinishedAttemptSample[]): void {
    if (!this.recording) return;
    for (const a of attempts) {
      this.attempts.inc({ outcome: attemptOutcomeClass(a) });
      this.attemptDuration.observe(a.durationMs / 1000);
      if (a.lagMs !== null) this.deliveryLag.observe(a.lagMs / 1000);
    }
  }

  /** Attempts closed as of unknown outcome (their process stopped before recording them). */
  recordAbandonedAttempts(count: number): void {
    if (!this.recording) return;
    if (count > 0) this.attempts.inc({ outcome: 'other' }, count);
  }

  /** Rows of a spreadsheet import committed with their chunk. */
  recordSpreadsheetRows(rows: number): void {
    if (!this.recording) return;
    this.spreadsheetRows.inc(rows);
  }

  /** Deliveries a recovery moved back to `pending`. */
  recordRecoveredDeliveries(count: number): void {
    if (!this.recording) return;
    this.recoveredDeliveries.inc(count);
  }

  /**
   * Deliveries put back to wait on their endpoint's throttle (docs/webhooks.md#throttling),
   * by the limit that held them: `rate` or `in_flight`.
   */
  recordThrottleWaits(limit: 'rate' | 'in_flight', count: number): void {
    if (!this.recording) return;
    if (count > 0) this.throttleWaits.inc({ limit }, count);
  }

  /**
   * Deliveries held behind an earlier pending delivery of their lead, on an endpoint with
   * `ordering = 'per_lead'` (docs/webhooks.md#per-lead-ordering).
   */
  recordOrderingHolds(count: number): void {
    if (!this.recording) return;
    if (count > 0) this.orderingHolds.inc(count);
  }

  /**
   * Defines a gauge whose values `collect` sets at each scrape (see prom-client's `collect`).
   * `collect` must not throw: scrape-time look-ups catch their errors (see
   * `OperationalGauges`).
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: CollectFunction<Gauge<L>>,
  ): Gauge<L> {
    return new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      collect,
      registers: [this.registry],
    });
  }

  /** The exposition text and its content type, as `GET /metrics` answers. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private leadCounter(what: string, help: string): Counter<'source'> {
    return new Counter({
      name: `${METRIC_PREFIX}leads_${what}_total`,
      help: `${help} By source (api, spreadsheet).`,
      labelNames: ['source'] as const,
      registers: [this.registry],
    });
  }
}
