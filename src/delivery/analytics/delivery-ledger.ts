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
   * Of those, never to be sent: `skipped` (the endpoint was disabled when the event was
   * recorded) plus `dropped` (it was disabled or deleted before an attempt).
   */
  skipped: number;
}

/** An endpoint's delivery ledger: one entry per UTC day, newest first, empty days as zeros. */
export interface DeliveryLedger {
  days: LedgerDay[];
}

/** Whether `days` is a whole number of days a ledger may cover (1 to {@link LEDGER_MAX_DAYS}). */
export function isLedgerDays(days: number): boolean {
  return Number.isInteger(days) && days >= 1 && days <= LEDGER_MAX_DAYS;
}
