import { InvalidInputError } from '../../common/domain-error';
import { cursorFields, keysetCursor } from '../../common/keyset-cursor';
import { parsePageLimit } from '../../common/page-limit';
import { EVENT_TYPES, isEventType } from '../../webhooks';
import type { AttemptLogFilter, AttemptRecord, LogPosition } from './attempt-records';
import { PING } from './test-messages.constants';
import { DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, LOG_OUTCOMES } from './delivery-log.constants';

/**
 * The delivery log's parameters as a client passes them (docs/dashboard.md#delivery-log), named
 * like the dashboard's query parameters so that an {@link InvalidInputError}'s `field` is the
 * parameter's name. Every one is optional; `undefined` and `null` mean "not given".
 */
export interface DeliveryLogQuery {
  /** `succeeded` or `failed`. */
  outcome?: string | null;
  /** One of the seven event types, or `ping`. */
  event_type?: string | null;
  /**
   * Attempts started at or after this time: a `Date`, or an ISO 8601 date-time with `Z` or an
   * offset.
   */
  from?: string | Date | null;
  /** Attempts started before this time (exclusive); as `from`. */
  to?: string | Date | null;
  /** 1 to {@link MAX_LOG_LIMIT}, default {@link DEFAULT_LOG_LIMIT}: a number or decimal digits. */
  limit?: number | string | null;
  /** The `next_cursor` of the previous page. */
  cursor?: string | null;
}

/** One attempt of the delivery log (docs/dashboard.md#delivery-log). */
export type DeliveryLogItem = Omit<AttemptRecord, 'response_excerpt'>;

/** A page of the delivery log: `next_cursor` is null on the last page. */
export interface DeliveryLogPage {
  items: DeliveryLogItem[];
  next_cursor: string | null;
}

/** The checked parameters: what to read, `limit` rows at most. */
export type DeliveryLogFilter = AttemptLogFilter;

/**
 * The delivery log's cursor: `v1:<attempted_at in µs since the epoch>:<id>`. The version lets
 * the format change without breaking cursors of older pages silently.
 */
const LOG_CURSOR = keysetCursor({
  prefix: 'v1:',
  separator: ':',
  fields: [cursorFields.signedInt8(), cursorFields.id()],
  maxLength: 64,
  message: 'is not a cursor of this log: pass next_cursor unchanged',
});

/**
 * The opaque cursor of the page after `last` (docs/dashboard.md#delivery-log), made by
 * {@link keysetCursor}. Clients must not build or read it.
 */
export function encodeLogCursor(last: LogPosition): string {
  return LOG_CURSOR.encode([last.attemptedAtUs, last.id]);
}

/**
 * Reads a cursor made by {@link encodeLogCursor} (docs/security.md#cursors).
 * @throws InvalidInputError (field `cursor`) for anything else ({@link keysetCursor}): a time
 *   beyond PostgreSQL's `bigint` or an id beyond 2^53 included.
 */
export function decodeLogCursor(cursor: string): LogPosition {
  const [attemptedAtUs, id] = LOG_CURSOR.decode(cursor);
  return { attemptedAtUs, id };
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/i;

/**
 * An instant from an ISO 8601 date-time with a zone (`2026-11-22T23:10:54.279Z`,
 * `…T23:10+02:00`), with real calendar values; fractions beyond milliseconds are dropped.
 * @throws InvalidInputError (field `field`) otherwise.
 */
export function parseInstant(field: string, value: string | Date): Date {
  const invalid = () =>
    InvalidInputError.field(field, 'must be an ISO 8601 date-time with a time zone');
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid();
    return value;
  }
  const match = typeof value === 'string' ? DATE_TIME.exec(value) : null;
  if (!match) throw invalid();
  const [year, month, day, hour, minute, second = '0', offsetHours = '0', offsetMinutes = '0'] =
    match.slice(1);
  const calendarDay = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (
    calendarDay.getUTCFullYear() !== Number(year) ||
    calendarDay.getUTCMonth() !== Number(month) - 1 ||
    calendarDay.getUTCDate() !== Number(day) ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59 ||
    Number(offsetHours) > 23 ||
    Number(offsetMinutes) > 59
  ) {
    throw invalid();
  }
  const instant = new Date(value);
  if (Number.isNaN(instant.getTime())) throw invalid();
  return instant;
}

const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/**
 * Checks the delivery log's parameters (docs/dashboard.md#delivery-log) and turns them into the
 * repository's filter. Pure.
 * @throws InvalidInputError whose `field` names the first bad parameter: `outcome`,
 *   `event_type`, `from`, `to` (also when not after `from`), `limit` or `cursor`.
 */
export function parseDeliveryLogQuery(query: DeliveryLogQuery): DeliveryLogFilter {
  const filter: DeliveryLogFilter = { limit: DEFAULT_LOG_LIMIT };
  if (given(query.outcome)) {
    if (query.outcome !== 'succeeded' && query.outcome !== 'failed') {
      throw InvalidInputError.field('outcome', `must be ${LOG_OUTCOMES.join(' or ')}`);
    }
    filter.success = query.outcome === 'succeeded';
  }
  if (given(query.event_type)) {
    if (query.event_type === PING || isEventType(query.event_type)) {
      filter.eventType = query.event_type;
    } else {
      throw InvalidInputError.field(
        'event_type',
        `must be ${PING} or one of ${EVENT_TYPES.join(', ')}`,
      );
    }
  }
  if (given(query.from)) filter.from = parseInstant('from', query.from);
  if (given(query.to)) filter.to = parseInstant('to', query.to);
  if (filter.from && filter.to && filter.to.getTime() <= filter.from.getTime()) {
    throw InvalidInputError.field('to', 'must be later than from');
  }
  filter.limit = parsePageLimit(query.limit, { fallback: DEFAULT_LOG_LIMIT, max: MAX_LOG_LIMIT });
  if (given(query.cursor)) filter.after = decodeLogCursor(query.cursor);
  return filter;
}
