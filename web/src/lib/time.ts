/**
 * Timestamps as the dashboard shows them: in the viewer's own time zone, with the UTC time
 * (what the API sends and the logs use) one hover or focus away.
 */

/** A timestamp as the API sends it (ISO 8601, UTC) or as a Date. */
export type TimestampInput = string | number | Date | null | undefined;

/** The Date of `value`, or null when there is none or it is not a valid time. */
export function parseTimestamp(value: TimestampInput): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? new Date(value.getTime()) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The viewer's IANA time zone (e.g. `Europe/Paris`), as the browser reports it. */
export function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function localFormatter(locale: string | undefined, timeZone: string | undefined) {
  const key = `${locale ?? ''}|${timeZone ?? ''}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'short',
      timeZone,
    });
    formatters.set(key, formatter);
  }
  return formatter;
}

/** Options of {@link formatLocal}: both default to the viewer's. */
export interface LocalFormatOptions {
  /** An IANA time zone. */
  timeZone?: string;
  /** A BCP 47 locale. */
  locale?: string;
}

/**
 * `value` in the viewer's time zone and locale, with the zone's abbreviation, e.g.
 * `Nov 23, 2026, 02:05:09 PM GMT+1` (en-US) or `23 Nov 2026, 14:05:09 CET` (en-GB);
 * an empty string for no valid time.
 */
export function formatLocal(value: TimestampInput, options: LocalFormatOptions = {}): string {
  const date = parseTimestamp(value);
  if (!date) return '';
  return localFormatter(options.locale, options.timeZone).format(date);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `value` in UTC, the same in every locale: `2026-11-23 13:05:09 UTC` (milliseconds only
 * when there are some: `13:05:09.042 UTC`); an empty string for no valid time.
 */
export function formatUtc(value: TimestampInput): string {
  const date = parseTimestamp(value);
  if (!date) return '';
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const ms = date.getUTCMilliseconds();
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return `${day} ${time}${ms ? `.${pad(ms, 3)}` : ''} UTC`;
}
