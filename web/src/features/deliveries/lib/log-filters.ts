import type { LogQuery } from '../../../api/types';

/** The delivery log's filters as the page holds them. */
export interface LogFilters {
  /** `succeeded`, `failed` or '' (any). */
  outcome: '' | 'succeeded' | 'failed';
  /** One of the event types, `ping`, or '' (any). */
  eventType: string;
  /** `datetime-local` values in the viewer's time zone ('' for none). */
  from: string;
  to: string;
}

export const NO_FILTERS: LogFilters = { outcome: '', eventType: '', from: '', to: '' };

/** Whether any filter is set. */
export function hasFilters(filters: LogFilters): boolean {
  return Boolean(filters.outcome || filters.eventType || filters.from || filters.to);
}

/** A `datetime-local` value (the viewer's zone) as an ISO 8601 UTC time; null when empty or invalid. */
export function localToIso(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** A time as a `datetime-local` value in the viewer's zone, to the minute. */
export function isoToLocal(value: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}T${pad(value.getHours())}:${pad(value.getMinutes())}`;
}

/** Why the time range cannot be sent, or null when it can. */
export function rangeProblem(filters: LogFilters): string | null {
  const from = localToIso(filters.from);
  const to = localToIso(filters.to);
  if (from && to && to <= from) return 'The end of the time range must be after its start.';
  return null;
}

/**
 * The query parameters of `GET /endpoints/{id}/attempts` for `filters` and the page's
 * `cursor` (the previous page's `next_cursor`; null for the first page).
 */
export function logQueryParams(filters: LogFilters, cursor: string | null, limit = 50): LogQuery {
  const params: LogQuery = { limit };
  if (filters.outcome) params.outcome = filters.outcome;
  if (filters.eventType) params.event_type = filters.eventType as LogQuery['event_type'];
  const from = localToIso(filters.from);
  const to = localToIso(filters.to);
  if (from) params.from = from;
  if (to && !(from && to <= from)) params.to = to;
  if (cursor) params.cursor = cursor;
  return params;
}
