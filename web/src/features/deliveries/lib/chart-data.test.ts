import { describe, expect, it } from 'vitest';
import type { DeliveryStats } from '../api/stats-queries';
import { chartRows, FAILURE_SERIES } from './chart-data';

const figures = {
  attempts: 4,
  successes: 3,
  failures: {
    timeout: 0,
    connection_error: 0,
    redirect: 0,
    client_error: 0,
    server_error: 1,
    other: 0,
  },
  success_rate: 0.75,
  avg_duration_ms: 12.5,
  latency_ms: { p50: 10.2, p95: 30.1, p99: 30.1 },
  first_successes: 3,
  lag_ms: { p50: 40.5, p95: 88 },
};
const empty = {
  ...figures,
  attempts: 0,
  successes: 0,
  failures: { ...figures.failures, server_error: 0 },
  success_rate: null,
  avg_duration_ms: null,
  latency_ms: { p50: null, p95: null, p99: null },
  first_successes: 0,
  lag_ms: { p50: null, p95: null },
};

describe('chart rows', () => {
  it('give each point its counts by outcome, success rate in percent and percentiles in ms', () => {
    const stats: DeliveryStats = {
      window: '1h',
      resolution: 'minute',
      from: '2026-11-25T17:00:00.000Z',
      to: '2026-11-25T17:02:00.000Z',
      totals: figures,
      points: [
        { start: '2026-11-25T17:00:00.000Z', ...figures },
        { start: '2026-11-25T17:01:00.000Z', ...empty },
      ],
    };
    const [first, second] = chartRows(stats);
    expect(first).toMatchObject({
      succeeded: 3,
      server_error: 1,
      success_rate: 75,
      p50: 10.2,
      p99: 30.1,
      lag_p95: 88,
    });
    // An empty period is a gap in the lines, not a zero.
    expect(second).toMatchObject({ succeeded: 0, success_rate: null, p50: null, lag_p50: null });
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining(['time', ...FAILURE_SERIES.map((s) => s.key)]),
    );
  });
});
