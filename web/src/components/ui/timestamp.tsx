import { Text, Tooltip } from '@mantine/core';
import { formatLocal, formatUtc, parseTimestamp, type TimestampInput } from '../../lib/time';

/** Props of {@link Timestamp}. */
export interface TimestampProps {
  /** The time, as the API sends it (ISO 8601 UTC). */
  value: TimestampInput;
  /** Shown when there is no time (e.g. an API key never used). */
  fallback?: string;
  /** Overrides the viewer's time zone (tests, or a page that pins one). */
  timeZone?: string;
  /** Overrides the viewer's locale. */
  locale?: string;
}

/**
 * A time in the viewer's time zone, in a `<time>` element; hovering or focusing it (it is in the
 * tab order) shows the same instant in UTC.
 */
export function Timestamp({ value, fallback = '—', timeZone, locale }: TimestampProps) {
  const date = parseTimestamp(value);
  if (!date) {
    return (
      <Text span c="dimmed" inherit>
        {fallback}
      </Text>
    );
  }
  const utc = formatUtc(date);
  return (
    <Tooltip
      label={utc}
      events={{ hover: true, focus: true, touch: true }}
      withArrow
      openDelay={150}
    >
      <time dateTime={date.toISOString()} tabIndex={0} data-utc={utc}>
        {formatLocal(date, { timeZone, locale })}
      </time>
    </Tooltip>
  );
}
