import type { DeliveryStatus, DeliveryStatusReason } from '../deliveries';
import type { SendResult } from '../sending';

/** The shapes of `webhook_delivery_attempt` rows as the attempt log writes and reads them. */

/**
 * The request of an attempt as the delivery log keeps it (docs/dashboard.md#attempt-detail):
 * the URL, the headers with each signature truncated (`loggedHeaders` in webhook-sender.ts),
 * and the body when no event row holds it (pings and test events; a delivery's body is its
 * event's).
 */
export interface RecordedRequest {
  /** POST (when absent), or what a transformation chose (docs/webhooks.md#transformations). */
  method?: 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/** An attempt about to be sent. */
export interface AttemptStart {
  endpointId: number;
  deliveryId: number | null;
  /** The `webhook-id` sent (the event id, `ping_<uuid>` or `test_<uuid>`). */
  messageId: string;
  /** The `type` of the body sent: the event's, a test event's, or `ping`. */
  eventType: string;
  attemptedAt: Date;
  request: RecordedRequest;
  /** The version of the endpoint's transformation that shaped it; null or absent: none did. */
  transformationVersion?: number | null;
  /**
   * Set for a scheduled attempt (absent for redeliveries and test messages): the delivery's
   * attempt count as the caller read it. The attempt is recorded as number `attemptCount + 1`
   * of its delivery, unique: of two jobs that read the same state of a delivery, only one
   * begins an attempt (docs/reliability.md "One scheduled attempt at a time").
   */
  scheduled?: { attemptCount: number };
}

/** An attempt's result, and what it does to its delivery (`next` null: leave the delivery as is). */
export interface NewAttempt {
  endpointId: number;
  deliveryId: number | null;
  messageId: string;
  result: SendResult;
  next: {
    status: DeliveryStatus;
    nextAttemptAt: Date | null;
    /** Why, where the status alone does not say (a transformation's failure). */
    reason?: DeliveryStatusReason | null;
  } | null;
}

/**
 * A begun attempt's row: its id and its partition key (docs/operations.md#retention), the
 * delivery's creation time or, without a delivery, the attempt's own.
 */
export interface AttemptKey {
  id: number;
  deliveryCreatedAt: Date;
}

/** A begun attempt (its row's key) with its result. */
export interface FinishedAttempt extends NewAttempt, AttemptKey {
  /**
   * When the attempt's event was recorded, if a success of this attempt would be its
   * delivery's first (the delivery had not succeeded before): the rollups then count its
   * end-to-end lag (docs/delivery-analytics.md). Absent for pings and test events.
   */
  eventCreatedAt?: Date | null;
}

/** An attempt closed as of unknown outcome, as the health counters and the caller see it. */
export interface ClosedAttempt {
  endpointId: number;
  deliveryId: number | null;
  attemptedAt: Date;
  durationMs: number;
  success: false;
}

/** The error recorded for an attempt whose process stopped before it recorded the result. */
export const UNKNOWN_OUTCOME =
  'outcome unknown: the process stopped before recording the result; the delivery is retried';

/** One recorded attempt, as the CLI prints it (docs/cli.md#commands). */
export interface AttemptRecord {
  id: number;
  delivery_id: number | null;
  endpoint_id: number;
  webhook_id: string;
  event_type: string | null;
  attempted_at: Date;
  duration_ms: number;
  status_code: number | null;
  success: boolean;
  error: string | null;
  response_excerpt: string | null;
}

/**
 * Where an attempt stands in the delivery log's order (`attempted_at DESC, id DESC`):
 * `attempted_at` in whole microseconds since the Unix epoch, as decimal digits (PostgreSQL's
 * own precision and range, which a JavaScript `Date` or number would round), and the id.
 */
export interface LogPosition {
  attemptedAtUs: string;
  id: number;
}

/** A finished attempt of the log with its position, for the next page's cursor. */
export interface LoggedAttempt extends AttemptRecord {
  position: LogPosition;
}

/**
 * Which finished attempts of one endpoint to read, newest first (docs/dashboard.md#delivery-log).
 * Every field but `limit` is optional; absent means "any".
 */
export interface AttemptLogFilter {
  success?: boolean;
  /** The `type` of the body sent (`ping` for pings). */
  eventType?: string;
  /** `attempted_at >= from`. */
  from?: Date;
  /** `attempted_at < to`. */
  to?: Date;
  /** Only attempts after this one in the log's order (older, or as old with a smaller id). */
  after?: LogPosition;
  limit: number;
}

/** A finished attempt with the request as recorded, for the attempt's detail. */
export interface AttemptRequestRecord extends AttemptRecord {
  /** Null for attempts recorded before requests were (migration DeliveryLog1795500000001). */
  request_url: string | null;
  request_headers: Record<string, string> | null;
  /** The attempt's own body (pings, test events, a transformation's), else its event's. */
  request_body: string | null;
  /** POST, or the method a transformation chose. */
  request_method: 'POST' | 'PUT' | 'PATCH';
  /** The version of the endpoint's transformation that shaped it; null: none did. */
  transformation_version: number | null;
  /**
   * The response's headers as kept (bounded, credentials redacted: `boundedResponseHeaders`);
   * null when no response came, or for attempts recorded before they were stored.
   */
  response_headers: Record<string, string> | null;
  /** Where the attempt's delivery stands now; null for pings and test events. */
  delivery: DeliveryState | null;
}

/** A delivery as it stands now: its status, attempts so far and when the next one is due. */
export interface DeliveryState {
  status: DeliveryStatus;
  attempt_count: number;
  /** When the next attempt is due; null unless the delivery is pending. */
  next_attempt_at: Date | null;
}
