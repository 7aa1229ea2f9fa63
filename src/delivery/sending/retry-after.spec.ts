import { parseHttpDate, retryAfterDelayMs, retryAfterOfResponse } from './retry-after';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

describe('Retry-After (RFC 9110, docs/webhooks.md#busy-receivers-429-and-503)', () => {
  it('reads delta-seconds as a delay from now', () => {
    expect(retryAfterDelayMs('2', NOW)).toBe(2_000);
    expect(retryAfterDelayMs('0', NOW)).toBe(0);
    expect(retryAfterDelayMs(' 120 ', NOW)).toBe(120_000);
    expect(retryAfterDelayMs('0007', NOW)).toBe(7_000);
  });

  it('reads an absurdly long delta-seconds as very long, never as an error', () => {
    expect(retryAfterDelayMs('9'.repeat(400), NOW)).toBe(Number.MAX_SAFE_INTEGER);
    expect(retryAfterDelayMs('99999999999', NOW)).toBe(99_999_999_999_000);
  });

  it('reads an HTTP-date in each of its three forms, measured from now', () => {
    expect(retryAfterDelayMs('Wed, 25 Nov 2026 12:00:05 GMT', NOW)).toBe(5_000);
    expect(retryAfterDelayMs('Wednesday, 25-Nov-26 12:01:00 GMT', NOW)).toBe(60_000);
    expect(retryAfterDelayMs('Wed Nov 25 12:00:03 2026', NOW)).toBe(3_000);
    expect(retryAfterDelayMs('Tue Dec  1 12:00:00 2026', NOW)).toBe(6 * 86_400_000);
  });

  it('reads a date already past as no delay', () => {
    expect(retryAfterDelayMs('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
  });

  it.each([
    undefined,
    '',
    ' ',
    '-5',
    '+5',
    '1.5',
    '5s',
    '0x10',
    '1e3',
    'soon',
    'Wed, 25 Nov 2026 12:00:05 UTC',
    'Wed, 25 Nov 2026 12:00:05 +0000',
    '2026-11-25T12:00:05Z',
    'Wed, 31 Feb 2026 12:00:05 GMT',
    'Wed, 25 Nov 2026 25:00:05 GMT',
    'Wed, 25 Foo 2026 12:00:05 GMT',
    'Wed, 5 Nov 2026 12:00:05 GMT',
  ])('ignores a missing or malformed value: %j', (value) => {
    expect(retryAfterDelayMs(value, NOW)).toBeNull();
  });

  it('ignores a field sent twice (it takes one value)', () => {
    expect(retryAfterDelayMs(['2', '3'], NOW)).toBeNull();
  });

  it('parses HTTP-dates strictly, in UTC', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(
      Date.UTC(1994, 10, 6, 8, 49, 37),
    );
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Fri, 29 Feb 2028 00:00:00 GMT')).toBe(Date.UTC(2028, 1, 29));
    expect(parseHttpDate('Thu, 29 Feb 2027 00:00:00 GMT')).toBeNull();
  });

  it("measures a date from the response's own Date header when it has a valid one", () => {
    const headers = {
      date: 'Wed, 25 Nov 2026 11:00:00 GMT',
      'retry-after': 'Wed, 25 Nov 2026 11:00:30 GMT',
    };
    // The receiver's clock is an hour behind ours: the delay is still 30 s.
    expect(retryAfterOfResponse(headers, NOW)).toBe(30_000);
    expect(retryAfterOfResponse({ date: 'yesterday', 'retry-after': '4' }, NOW)).toBe(4_000);
    expect(
      retryAfterOfResponse({ date: 'junk', 'retry-after': 'Wed, 25 Nov 2026 12:00:30 GMT' }, NOW),
    ).toBe(30_000);
    expect(retryAfterOfResponse({}, NOW)).toBeNull();
  });
});
