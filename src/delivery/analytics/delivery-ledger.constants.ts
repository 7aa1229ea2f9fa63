/** Days of a delivery ledger when the caller names none (docs/dashboard.md#delivery-ledger). */
export const LEDGER_DEFAULT_DAYS = 30;

/** The most days one delivery ledger covers. */
export const LEDGER_MAX_DAYS = 90;

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
