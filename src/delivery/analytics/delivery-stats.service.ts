import { Injectable } from '@nestjs/common';
import { InvalidInputError } from '../../common/domain-error';
import {
  FAILURE_CLASSES,
  HistogramSum,
  periodStart,
  type FailureClass,
  type RollupPeriod,
  type RollupIncrement,
  type RollupRow,
} from './delivery-rollup';
import type { EntityManager } from 'typeorm';
import { DeliveryRollupRepository, type FailureSignals } from './delivery-rollup.repository';

/** The windows a chart can show, each read at one granularity (docs/delivery-analytics.md#windows). */
export const STATS_WINDOWS = {
  '1h': { period: 'minute', points: 60, unitMs: 60_000 },
  '24h': { period: 'hour', points: 24, unitMs: 3_600_000 },
  '7d': { period: 'hour', points: 168, unitMs: 3_600_000 },
  '30d': { period: 'day', points: 30, unitMs: 86_400_000 },
} as const satisfies Record<string, { period: RollupPeriod; points: number; unitMs: number }>;
export type StatsWindow = keyof typeof STATS_WINDOWS;

/** Figures over a set of attempts (one point of a chart, or a whole window). */
export interface DeliveryFigures {
  attempts: number;
  successes: number;
  failures: Record<FailureClass, number>;
  /** successes / attempts, null without attempts. */
  success_rate: number | null;
  /** Mean attempt duration, ms; null without attempts. */
  avg_duration_ms: number | null;
  /** Attempt duration percentiles, ms (within 4.9 %); null without attempts. */
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
  /** Deliveries whose first success falls here. */
  first_successes: number;
  /** Event recorded → first successful attempt, percentiles in ms (within 4.9 %). */
  lag_ms: { p50: number | null; p95: number | null };
}

/** One point of a chart: the figures of the period starting at `start`. */
export interface DeliveryStatsPoint extends DeliveryFigures {
  start: string;
}

/** A window's figures and its chart points, oldest first, empty periods included. */
export interface DeliveryStats {
  window: StatsWindow;
  resolution: RollupPeriod;
  /** Start of the first point (inclusive) and end of the last (exclusive). */
  from: string;
  to: string;
  totals: DeliveryFigures;
  points: DeliveryStatsPoint[];
}

const round3 = (n: number | null): number | null =>
  n === null ? null : Math.round(n * 1000) / 1000;

/** What a point (or a window) adds up from its rollup rows. */
interface Sum {
  attempts: number;
  successes: number;
  failures: Record<FailureClass, number>;
  durationSumMs: number;
  latency: HistogramSum;
  firstSuccesses: number;
  lag: HistogramSum;
}

function emptySum(): Sum {
  const failures = {} as Record<FailureClass, number>;
  for (const c of FAILURE_CLASSES) failures[c] = 0;
  return {
    attempts: 0,
    successes: 0,
    failures,
    durationSumMs: 0,
    latency: new HistogramSum(),
    firstSuccesses: 0,
    lag: new HistogramSum(),
  };
}

function addRow(sum: Sum, row: RollupRow): void {
  sum.attempts += row.attempts;
  sum.successes += row.successes;
  for (const c of FAILURE_CLASSES) sum.failures[c] += row.failures[c];
  sum.durationSumMs += row.durationSumMs;
  sum.latency.add(row.latency);
  sum.firstSuccesses += row.firstSuccesses;
  sum.lag.add(row.lag);
}

/** The figures of `sum`, after the fields of `head` (a point's `start`). */
function figures<Head extends object>(sum: Sum, head: Head): Head & DeliveryFigures {
  const [p50, p95, p99] = sum.latency.percentiles([0.5, 0.95, 0.99]).map(round3);
  const [lag50, lag95] = sum.lag.percentiles([0.5, 0.95]).map(round3);
  return {
    ...head,
    attempts: sum.attempts,
    successes: sum.successes,
    failures: sum.failures,
    success_rate: sum.attempts === 0 ? null : round3(sum.successes / sum.attempts),
    avg_duration_ms: sum.attempts === 0 ? null : round3(sum.durationSumMs / sum.attempts),
    latency_ms: { p50, p95, p99 },
    first_successes: sum.firstSuccesses,
    lag_ms: { p50: lag50, p95: lag95 },
  };
}

/**
 * Delivery analytics (docs/delivery-analytics.md): the figures and chart points of one
 * endpoint or of several (a campaign's) over a window, read from the rollups only, so a read
 * costs O(points × endpoints × histogram buckets) whatever the number of attempts recorded.
 */
@Injectable()
export class DeliveryStatsService {
  constructor(private readonly rollups: DeliveryRollupRepository) {}

  /**
   * The window ending now: its last point is the current (partial) minute, hour or day.
   * @param window `1h` (60 minutes), `24h` (24 hours), `7d` (168 hours) or `30d` (30 days).
   * @throws InvalidInputError (field `window`) for another value.
   */
  async of(endpointIds: number[], window: string, now = new Date()): Promise<DeliveryStats> {
    if (!Object.hasOwn(STATS_WINDOWS, window)) {
      throw InvalidInputError.field(
        'window',
        `must be one of ${Object.keys(STATS_WINDOWS).join(', ')}`,
      );
    }
    const { period, points, unitMs } = STATS_WINDOWS[window as StatsWindow];
    const to = new Date(periodStart(now, period).getTime() + unitMs);
    const from = new Date(to.getTime() - points * unitMs);
    const rows = await this.rollups.read(endpointIds, period, from, to);
    const sums = Array.from({ length: points }, emptySum);
    const total = emptySum();
    for (const row of rows) {
      const index = Math.floor((row.start.getTime() - from.getTime()) / unitMs);
      if (index < 0 || index >= points) continue;
      addRow(sums[index], row);
      addRow(total, row);
    }
    return {
      window: window as StatsWindow,
      resolution: period,
      from: from.toISOString(),
      to: to.toISOString(),
      totals: figures(total, {}),
      points: sums.map((sum, i) =>
        figures(sum, { start: new Date(from.getTime() + i * unitMs).toISOString() }),
      ),
    };
  }

  /**
   * Adds attempts' increments to their rollup rows, in the caller's transaction (the attempt's
   * result's, docs/delivery-analytics.md#rollups): the attempt log's only way to the rollups.
   */
  record(manager: EntityManager, increments: RollupIncrement[]): Promise<void> {
    return this.rollups.add(manager, increments);
  }

  /**
   * What the failing-endpoint rules read of each endpoint (docs/webhooks.md#failing-endpoints),
   * from the minute and hour rollups.
   */
  failureSignals(since: Map<number, Date>): Promise<FailureSignals[]> {
    return this.rollups.failureSignals(since);
  }
}
