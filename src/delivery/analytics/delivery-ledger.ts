/** Days of a delivery ledger when the caller names none (docs/dashboard.md#delivery-ledger). */
export const LEDGER_DEFAULT_DAYS = 30;
/** The most days one delivery ledger covers. */
export const LEDGER_MAX_DAYS = 90;

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

const DAYS_TEXT = /^[1-9][0-9]?$/;

/**
 * Reads the ledger's `days` as a client writes it (a query parameter): absent is
 * {@link LEDGER_DEFAULT_DAYS}; else decimal digits without sign or leading zero, from 1 to
 * {@link LEDGER_MAX_DAYS}.
 * @returns the number of days, or null when `value` is not such a number (the caller's error
 *   to report: the dashboard answers `400 bad_request`).
 */
export function parseLedgerDays(value: string | undefined): number | null {
  if (value === undefined) return LEDGER_DEFAULT_DAYS;
  if (!DAYS_TEXT.test(value)) return null;
  const days = Number(value);
  return days <= LEDGER_MAX_DAYS ? days : null;
}

/** Whether `days` is a whole number of days a ledger may cover (1 to {@link LEDGER_MAX_DAYS}). */
export function isLedgerDays(days: number): boolean {
  return Number.isInteger(days) && days >= 1 && days <= LEDGER_MAX_DAYS;
}
