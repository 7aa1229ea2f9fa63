import { decide } from './failing-endpoints.monitor';

const DAY = 86_400_000;
const signals = (over: Partial<Parameters<typeof decide>[0]> = {}) => ({
  endpointId: 1,
  hourAttempts: 0,
  hourSuccesses: 0,
  successesSince: 0,
  failingAllDay: false,
  ...over,
});

describe('the failing-endpoint rules', () => {
  const now = Date.UTC(2026, 10, 25, 18, 0, 0);

  it('mark an endpoint failing by the last hour’s rate (20+ attempts, more than half failed) or a failed day', () => {
    expect(decide(signals({ hourAttempts: 19, hourSuccesses: 0 }), null, now, 5 * DAY)).toEqual({
      kind: 'none',
    });
    expect(decide(signals({ hourAttempts: 20, hourSuccesses: 10 }), null, now, 5 * DAY)).toEqual({
      kind: 'none',
    });
    expect(decide(signals({ hourAttempts: 20, hourSuccesses: 9 }), null, now, 5 * DAY)).toEqual({
      kind: 'failing',
      reason: 'failure_rate',
    });
    expect(decide(signals({ failingAllDay: true, hourAttempts: 3 }), null, now, 5 * DAY)).toEqual({
      kind: 'failing',
      reason: 'no_success',
    });
  });

  it('recover an endpoint once neither rule holds and the last hour had a success', () => {
    const failing = { since: now - DAY };
    expect(decide(signals({ hourAttempts: 20, hourSuccesses: 15 }), failing, now, 5 * DAY)).toEqual(
      { kind: 'recovered' },
    );
    // No traffic at all: still failing, nothing proves it recovered.
    expect(decide(signals(), failing, now, 5 * DAY)).toEqual({ kind: 'none' });
  });

  it('disable an endpoint failing for the whole delay with no success since', () => {
    const long = { since: now - 5 * DAY };
    expect(decide(signals({ failingAllDay: true }), long, now, 5 * DAY)).toEqual({
      kind: 'disable',
    });
    expect(decide(signals({ successesSince: 1 }), long, now, 5 * DAY)).toEqual({ kind: 'none' });
    expect(
      decide(signals({ failingAllDay: true }), { since: now - 4 * DAY }, now, 5 * DAY),
    ).toEqual({ kind: 'none' });
  });
});
