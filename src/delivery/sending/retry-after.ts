/**
 * Reading a receiver's `Retry-After` answer (RFC 9110, section 10.2.3) for
 * docs/webhooks.md#busy-receivers-429-and-503. Pure functions; no clock of their own.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const SHORT_DAYS = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAYS = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

/** `Sun, 06 Nov 1994 08:49:37 GMT`: the preferred form. */
const IMF_FIXDATE = new RegExp(`^${SHORT_DAYS}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT`: obsolete, still to be accepted. */
const RFC850_DATE = new RegExp(`^${LONG_DAYS}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994`: C's asctime(), obsolete, still to be accepted. */
const ASCTIME_DATE = new RegExp(`^${SHORT_DAYS} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** Delta-seconds: one or more digits, nothing else. */
const DELTA_SECONDS = /^\d+$/;

/**
 * Parses an HTTP-date (RFC 9110, section 5.6.7) in any of its three forms, always UTC. A
 * two-digit year of the obsolete RFC 850 form is read as the year within 50 years of `now`.
 * @param value the field value, surrounding whitespace allowed.
 * @param now the reference for a two-digit year (ms since the epoch).
 * @returns ms since the epoch, or null when `value` is not an HTTP-date or names no real day
 *   (`31 Feb`).
 */
export function parseHttpDate(value: string, now = Date.now()): number | null {
  const text = value.trim();
  let parts: { day: string; month: string; year: number; h: string; m: string; s: string };
  let match = IMF_FIXDATE.exec(text);
  if (match) {
    parts = { day: match[1], month: match[2], year: Number(match[3]), ...clock(match, 4) };
  } else if ((match = RFC850_DATE.exec(text))) {
    parts = {
      day: match[1],
      month: match[2],
      year: fullYear(Number(match[3]), now),
      ...clock(match, 4),
    };
  } else if ((match = ASCTIME_DATE.exec(text))) {
    parts = { day: match[2], month: match[1], year: Number(match[6]), ...clock(match, 3) };
  } else {
    return null;
  }
  const month = MONTHS.indexOf(parts.month);
  const [day, h, m, s] = [parts.day, parts.h, parts.m, parts.s].map((v) => Number(v.trim()));
  if (h > 23 || m > 59 || s > 60) return null;
  // A leap second (":60") is read as the first second of the next minute.
  const at = Date.UTC(parts.year, month, day, h, m, s);
  const date = new Date(Date.UTC(parts.year, month, day));
  return date.getUTCDate() === day && date.getUTCMonth() === month ? at : null;
}

function clock(match: RegExpExecArray, from: number): { h: string; m: string; s: string } {
  return { h: match[from], m: match[from + 1], s: match[from + 2] };
}

/** RFC 9110: a two-digit year more than 50 years in the future is in the past century. */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  let year = Math.floor(current / 100) * 100 + twoDigits;
  if (year > current + 50) year -= 100;
  return year;
}

/**
 * The delay a `Retry-After` field asks for: delta-seconds, or an HTTP-date measured from
 * `now` (a date already past is a delay of 0).
 * @param value the field as received: undefined when absent; an array when it came more than
 *   once, which is malformed (the field takes one value) and ignored.
 * @param now the reference for an HTTP-date, ms since the epoch: the response's own `Date`
 *   when it has a valid one (so the receiver's clock measures its own date), else this
 *   process's clock.
 * @returns the delay in ms (0 or more), or null when the field is missing or unparseable.
 */
export function retryAfterDelayMs(
  value: string | string[] | undefined,
  now: number,
): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (DELTA_SECONDS.test(text)) {
    // Delta-seconds of any length: what does not fit a double is simply "very long".
    const seconds = Number(text);
    return Number.isFinite(seconds) ? seconds * 1000 : Number.MAX_SAFE_INTEGER;
  }
  const at = parseHttpDate(text, now);
  return at === null ? null : Math.max(0, at - now);
}

/**
 * The delay a response asks for with `Retry-After`, measured as {@link retryAfterDelayMs}
 * says: from the response's `Date` when valid, else from `receivedAt`.
 * @param headers the response headers (lower-case names, as undici gives them).
 * @param receivedAt when the response arrived, ms since the epoch.
 * @returns ms, or null without a valid `Retry-After`.
 */
export function retryAfterOfResponse(
  headers: Record<string, string | string[] | undefined>,
  receivedAt: number,
): number | null {
  const date = headers.date;
  const sentAt = typeof date === 'string' ? parseHttpDate(date, receivedAt) : null;
  return retryAfterDelayMs(headers['retry-after'], sentAt ?? receivedAt);
}
