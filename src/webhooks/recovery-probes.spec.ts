import { nextProbeAt } from './recovery-probes';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const schedule = { firstMs: HOUR, maxIntervalMs: DAY, forMs: 30 * DAY };

describe('nextProbeAt', () => {
  const since = new Date('2026-11-01T00:00:00Z');
  const after = (ms: number) => new Date(since.getTime() + ms);

  it('doubles the wait after each failed probe: 2 h after the first, 4 h after the second', () => {
    expect(nextProbeAt(since, 1, after(HOUR), schedule)).toEqual(after(3 * HOUR));
    expect(nextProbeAt(since, 2, after(3 * HOUR), schedule)).toEqual(after(7 * HOUR));
    expect(nextProbeAt(since, 3, after(7 * HOUR), schedule)).toEqual(after(15 * HOUR));
  });

  it('never waits longer than the maximum interval, however many probes failed', () => {
    expect(nextProbeAt(since, 5, after(HOUR), schedule)).toEqual(after(HOUR + DAY));
    expect(nextProbeAt(since, 2000, after(HOUR), schedule)).toEqual(after(HOUR + DAY));
  });

  it('gives up when the next probe would fall after the probing window', () => {
    expect(nextProbeAt(since, 10, after(29 * DAY), schedule)).toEqual(after(30 * DAY));
    expect(nextProbeAt(since, 10, after(29 * DAY + 1), schedule)).toBeNull();
  });
});
