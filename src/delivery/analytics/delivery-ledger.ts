import { LEDGER_MAX_DAYS } from './delivery-ledger.constants';

/**
 * One UTC day of an endpoint's delivery ledger (docs/dashboard.md#delivery-ledger): the
 * deliveries created that day for the endpoint, by where each stands now. Always
 * `matched = delivered + failed + pending + skipped`.
 */
export interface LedgerDay {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** Deliveries created that day (UTC) for the endpoint, whatever their status. */
  matched: number;
  /** Of those, `succeeded`. */
  delivered: number;
  /** Of those, `failed`: the retry schedule ran out. */
  failed: number;
  /** Of those, still `pending`. */
  pending: number;
  /**
   * Of the pending, those waiting on the endpoint's throttle (docs/webhooks.md#throttling): put
   * back by it and not attempted since. The other pending ones wait for their first attempt or
   * for a retry.
   */
  throttled: number;
  /**
   * Of those, never to be sent: `skipped` (the endpoint was disabled when the event was
   * recorded) plus `dropped` (it was disabled or deleted before an attempt).
   */
  skipped: number;
  /**
   * Not deliveries, so outside the identity above: events of a subscribed type recorded that
   * day that the endpoint's payload filter left out (docs/webhooks.md#payload-filters), no match
   * or an evaluation error.
   */
  filtered: number;
}

/**
 * The endpoint's throttle as the ledger shows it (docs/webhooks.md#throttling): its limits
 * (null: unlimited) and how many of the ledger's pending deliveries wait on it.
 */
export interface LedgerThrottle {
  max_deliveries_per_second: number | null;
  max_in_flight: number | null;
  /** The sum of the days' `throttled`. */
  waiting: number;
}

/** An endpoint's delivery ledger: one entry per UTC day, newest first, empty days as zeros. */
export interface DeliveryLedger {
  days: LedgerDay[];
  throttle: LedgerThrottle;
}

/** Whether `days` is a whole number of days a ledger may cover (1 to {@link LEDGER_MAX_DAYS}). */
export function isLedgerDays(days: number): boolean {
  return Number.isInteger(days) && days >= 1 && days <= LEDGER_MAX_DAYS;
}
