import { describe, expect, it } from 'vitest';
import { formatLocal, formatUtc, parseTimestamp } from './time';

describe('formatUtc', () => {
  it('writes an instant in UTC, the same in every locale', () => {
    expect(formatUtc('2026-11-23T13:05:09Z')).toBe('2026-11-23 13:05:09 UTC');
    expect(formatUtc('2026-11-23T14:05:09+01:00')).toBe('2026-11-23 13:05:09 UTC');
  });

  it('shows milliseconds only when there are some', () => {
    expect(formatUtc('2026-01-02T03:04:05.042Z')).toBe('2026-01-02 03:04:05.042 UTC');
  });

  it('writes nothing for a missing or invalid time', () => {
    expect(formatUtc(null)).toBe('');
    expect(formatUtc(undefined)).toBe('');
    expect(formatUtc('not a date')).toBe('');
  });
});

describe('formatLocal', () => {
  const instant = '2026-11-23T13:05:09Z';

  it("writes the time in the viewer's zone, with the zone", () => {
    expect(formatLocal(instant, { timeZone: 'Europe/Paris', locale: 'en-GB' })).toBe(
      '23 Nov 2026, 14:05:09 CET',
    );
    expect(formatLocal(instant, { timeZone: 'America/New_York', locale: 'en-US' })).toBe(
      'Nov 23, 2026, 08:05:09 AM EST',
    );
  });

  it('follows daylight saving time', () => {
    expect(formatLocal('2026-07-01T12:00:00Z', { timeZone: 'Europe/Paris', locale: 'en-GB' })).toBe(
      '1 Jul 2026, 14:00:00 CEST',
    );
  });

  it('crosses the date line when the zone does', () => {
    expect(formatLocal('2026-12-31T23:30:00Z', { timeZone: 'Asia/Tokyo', locale: 'en-GB' })).toBe(
      '1 Jan 2027, 08:30:00 GMT+9',
    );
  });

  it('writes nothing for an invalid time', () => {
    expect(formatLocal('2026-13-45T99:00:00Z')).toBe('');
  });
});

describe('parseTimestamp', () => {
  it('copies a Date rather than sharing it', () => {
    const date = new Date('2026-11-23T13:05:09Z');
    const parsed = parseTimestamp(date)!;
    expect(parsed.getTime()).toBe(date.getTime());
    expect(parsed).not.toBe(date);
  });
});
