/**
 * The arithmetic of delivery rollups (docs/delivery-analytics.md): which failure class an
 * attempt falls in, the log-spaced histogram buckets of latencies and lags, percentiles read
 * back from a histogram, and the per-endpoint per-period totals a batch of attempts adds.
 * Pure: no I/O.
 */

/** The granularities rollups are kept at; coarser ones are derived from the same attempts. */
export const ROLLUP_PERIODS = ['minute', 'hour', 'day'] as const;
export type RollupPeriod = (typeof ROLLUP_PERIODS)[number];

/**
 * Why an attempt failed: no answer in time, no connection, a 3xx (never followed), a 4xx, a
 * 5xx, or `other` (another status, a request that could not be signed, or an attempt whose
 * process died before its result was recorded).
 */
export const FAILURE_CLASSES = [
  'timeout',
  'connection_error',
  'redirect',
  'client_error',
  'server_error',
  'other',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** What the rollups need of one finished attempt. */
export interface RolledAttempt {
  endpointId: number;
  attemptedAt: Date;
  /** ms from sending to the answer or the failure. */
  durationMs: number;
  success: boolean;
  statusCode: number | null;
  error: string | null;
  /**
   * ms from the event being recorded to this attempt's end, when this attempt is its
   * delivery's first success; null otherwise.
   */
  lagMs: number | null;
}

/**
 * A histogram of durations in ms as `{bucket: count}`, only buckets with a count. Bucket 0
 * holds values under {@link HISTOGRAM_MIN_MS}; bucket k ≥ 1 holds
 * [MIN·GROWTH^(k−1), MIN·GROWTH^k), and the last one everything above too.
 */
export type Histogram = Record<string, number>;

/** The lower bound of bucket 1, in ms. */
export const HISTOGRAM_MIN_MS = 0.1;
/**
 * Each bucket is 10 % wider than the one before, so a bucket's geometric middle is within
 * √1.1 − 1 ≈ 4.9 % of any value in it: a percentile read back is that close to the true one.
 */
export const HISTOGRAM_GROWTH = 1.1;
/** The last bucket: from MIN·GROWTH^239 ≈ 7.8·10^8 ms (about 9 days) up. */
export const HISTOGRAM_BUCKETS = 241;

/** The most a percentile read from a histogram can be off by, relative to the true value. */
export const HISTOGRAM_RELATIVE_ERROR = Math.sqrt(HISTOGRAM_GROWTH) - 1;

const LOG_GROWTH = Math.log(HISTOGRAM_GROWTH);

/** The bucket of a duration in ms (see {@link Histogram}). */
export function histogramBucket(ms: number): number {
  if (!(ms >= HISTOGRAM_MIN_MS)) return 0;
  const k = 1 + Math.floor(Math.log(ms / HISTOGRAM_MIN_MS) / LOG_GROWTH);
  return Math.min(k, HISTOGRAM_BUCKETS - 1);
}

/** The value a bucket stands for: its geometric middle, in ms (half the minimum for bucket 0). */
export function bucketValue(bucket: number): number {
  if (bucket <= 0) return HISTOGRAM_MIN_MS / 2;
  return HISTOGRAM_MIN_MS * Math.pow(HISTOGRAM_GROWTH, bucket - 0.5);
}

/** Counts one more value of `ms` in `histogram` (mutates it). */
export function countIn(histogram: Histogram, ms: number): void {
  const bucket = histogramBucket(ms);
  histogram[bucket] = (histogram[bucket] ?? 0) + 1;
}

/**
 * A histogram as the rollups store it and a chart reads it: the counts of buckets `lo`,
 * `lo + 1`, … in order (`counts[i]` is bucket `lo + i`'s), from its first bucket with a count to
 * its last; none for an empty one. In the table, an integer array whose lower bound is `lo`.
 */
export interface BucketCounts {
  lo: number;
  counts: number[];
}

/** A histogram in its stored form (see {@link BucketCounts}). */
export function bucketCounts(histogram: Histogram): BucketCounts {
  let lo = Infinity;
  let hi = -Infinity;
  for (const key in histogram) {
    if (!(histogram[key] > 0)) continue;
    const bucket = Number(key);
    if (bucket < lo) lo = bucket;
    if (bucket > hi) hi = bucket;
  }
  if (lo > hi) return { lo: 0, counts: [] };
  const counts: number[] = [];
  for (let bucket = lo; bucket <= hi; bucket++) counts.push(histogram[bucket] ?? 0);
  return { lo, counts };
}

/** The PostgreSQL `integer[]` literal of a histogram: `[lo:hi]={…}`, or `{}` when empty. */
export function histogramLiteral(histogram: Histogram): string {
  const { lo, counts } = bucketCounts(histogram);
  return counts.length === 0 ? '{}' : `[${lo}:${lo + counts.length - 1}]={${counts.join(',')}}`;
}

/**
 * The counts of a PostgreSQL `integer[]` as text: `{}`, `{…}` (lower bound 1) or
 * `[lo:hi]={…}`. One pass over the characters, for the chart read.
 */
export function parseBucketCounts(text: string): BucketCounts {
  let lo = 1;
  let i = 0;
  if (text.charCodeAt(0) === 0x5b /* [ */) {
    const colon = text.indexOf(':');
    lo = Number(text.slice(1, colon));
    i = text.indexOf('{', colon);
  }
  const counts: number[] = [];
  let n = 0;
  let digits = false;
  for (i += 1; i < text.length; i++) {
    const c = text.charCodeAt(i) - 0x30;
    if (c >= 0 && c <= 9) {
      n = n * 10 + c;
      digits = true;
    } else if (digits) {
      counts.push(n);
      n = 0;
      digits = false;
    }
  }
  return { lo, counts };
}

/** What a chart reads of one rollup row (docs/delivery-analytics.md#rollups). */
export interface RollupRow extends Omit<RollupTotals, 'latency' | 'lag'> {
  /** Start of the period. */
  start: Date;
  latency: BucketCounts;
  lag: BucketCounts;
}

/**
 * A rollup row from its `chart_line`, the text the table keeps of it for charts (migration
 * RollupChartLine1795936000000 renders it), and its summed duration: start in ms since the
 * epoch, attempts, successes, timeouts, connection errors, redirects, client errors, server
 * errors, other failures, first successes, the latency and the lag histograms, separated by
 * spaces.
 */
export function parseChartLine(line: string, durationSumMs: number): RollupRow {
  const fields = line.split(' ');
  const failures = {} as Record<FailureClass, number>;
  for (let k = 0; k < FAILURE_CLASSES.length; k++) {
    failures[FAILURE_CLASSES[k]] = Number(fields[3 + k]);
  }
  return {
    start: new Date(Number(fields[0])),
    attempts: Number(fields[1]),
    successes: Number(fields[2]),
    failures,
    firstSuccesses: Number(fields[9]),
    durationSumMs,
    latency: parseBucketCounts(fields[10]),
    lag: parseBucketCounts(fields[11]),
  };
}

/**
 * The nearest-rank percentiles of the buckets `lo`, `lo + 1`, … counted in `counts`, each as
 * its bucket's value (ms, within {@link HISTOGRAM_RELATIVE_ERROR} of the true percentile);
 * null when there is no count. Buckets outside 0 … {@link HISTOGRAM_BUCKETS} − 1 are ignored.
 * O(buckets), whatever the counts.
 * @param quantiles each in (0, 1], e.g. `[0.5, 0.95, 0.99]`.
 */
export function bucketPercentiles(
  lo: number,
  counts: number[],
  quantiles: number[],
): Array<number | null> {
  const from = Math.max(0, -lo);
  const to = Math.min(counts.length, HISTOGRAM_BUCKETS - lo);
  let total = 0;
  for (let i = from; i < to; i++) if (counts[i] > 0) total += counts[i];
  const values: Array<number | null> = quantiles.map(() => null);
  if (total === 0) return values;
  const rank = (q: number): number => Math.max(1, Math.ceil(q * total));
  for (let k = 0; k < quantiles.length;) {
    // One pass over the buckets reads quantiles k, k + 1, … for as long as they ascend.
    const first = k;
    let seen = 0;
    for (let i = from; i < to; i++) {
      if (!(counts[i] > 0)) continue;
      seen += counts[i];
      while (
        k < quantiles.length &&
        (k === first || quantiles[k] >= quantiles[k - 1]) &&
        seen >= rank(quantiles[k])
      ) {
        values[k++] = bucketValue(lo + i);
      }
      if (k === quantiles.length || (k > first && quantiles[k] < quantiles[k - 1])) break;
    }
    if (k === first) values[k++] = bucketValue(HISTOGRAM_BUCKETS - 1);
  }
  return values;
}

/** The nearest-rank percentiles of a histogram (see {@link bucketPercentiles}). */
export function percentiles(histogram: Histogram, quantiles: number[]): Array<number | null> {
  const { lo, counts } = bucketCounts(histogram);
  return bucketPercentiles(lo, counts, quantiles);
}

/**
 * The sum of histograms in their stored form, for a chart point or a whole window. One
 * histogram is kept as it is (a point of one endpoint has one row); more are added into the
 * fixed buckets. Either way O(buckets) per histogram added.
 */
export class HistogramSum {
  private single: BucketCounts | null = null;
  /** Counts of every bucket once more than one histogram was added (a plain array, as `counts`). */
  private dense: number[] | null = null;

  add(histogram: BucketCounts): void {
    if (histogram.counts.length === 0) return;
    if (this.dense === null) {
      if (this.single === null) {
        this.single = histogram;
        return;
      }
      this.dense = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
      this.addDense(this.single);
      this.single = null;
    }
    this.addDense(histogram);
  }

  /** See {@link bucketPercentiles}. */
  percentiles(quantiles: number[]): Array<number | null> {
    if (this.dense !== null) return bucketPercentiles(0, this.dense, quantiles);
    if (this.single !== null) {
      return bucketPercentiles(this.single.lo, this.single.counts, quantiles);
    }
    return quantiles.map(() => null);
  }

  private addDense({ lo, counts }: BucketCounts): void {
    const dense = this.dense!;
    const from = Math.max(0, -lo);
    const to = Math.min(counts.length, HISTOGRAM_BUCKETS - lo);
    for (let i = from; i < to; i++) if (counts[i] > 0) dense[lo + i] += counts[i];
  }
}

/** The failure class of a failed attempt (null for a success). */
export function failureClass(attempt: {
  success: boolean;
  statusCode: number | null;
  error: string | null;
}): FailureClass | null {
  if (attempt.success) return null;
  const status = attempt.statusCode;
  if (status !== null) {
    if (status >= 300 && status < 400) return 'redirect';
    if (status >= 400 && status < 500) return 'client_error';
    if (status >= 500 && status < 600) return 'server_error';
    return 'other';
  }
  const error = attempt.error ?? '';
  if (error.startsWith('timed out')) return 'timeout';
  if (error.startsWith('outcome unknown') || error.startsWith('could not sign')) return 'other';
  return 'connection_error';
}

/** The start of the period containing `at` (UTC). */
export function periodStart(at: Date, period: RollupPeriod): Date {
  const ms = at.getTime();
  const unit = period === 'minute' ? 60_000 : period === 'hour' ? 3_600_000 : 86_400_000;
  return new Date(ms - (((ms % unit) + unit) % unit));
}

/** What a rollup row counts (and what several rows add up to). */
export interface RollupTotals {
  attempts: number;
  successes: number;
  failures: Record<FailureClass, number>;
  /** Sum of the attempts' durations, ms. */
  durationSumMs: number;
  latency: Histogram;
  /** Deliveries whose first success is among these attempts. */
  firstSuccesses: number;
  lag: Histogram;
}

/** One endpoint's totals over one period, as a rollup row adds them. */
export interface RollupIncrement extends RollupTotals {
  endpointId: number;
  period: RollupPeriod;
  /** Start of the period (UTC). */
  start: Date;
}

/** Totals of nothing yet. */
export function emptyTotals(): RollupTotals {
  return {
    attempts: 0,
    successes: 0,
    failures: Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 0])) as Record<
      FailureClass,
      number
    >,
    durationSumMs: 0,
    latency: {},
    firstSuccesses: 0,
    lag: {},
  };
}

/**
 * The rollup rows a batch of attempts adds to: one per endpoint and period at each
 * granularity, sorted by (endpoint, period, start) so concurrent writers lock rows in one order.
 */
export function rollUp(attempts: RolledAttempt[]): RollupIncrement[] {
  const rows = new Map<string, RollupIncrement>();
  for (const a of attempts) {
    const failure = failureClass(a);
    for (const period of ROLLUP_PERIODS) {
      const start = periodStart(a.attemptedAt, period);
      const key = `${a.endpointId}|${period}|${start.getTime()}`;
      let row = rows.get(key);
      if (!row) {
        row = { endpointId: a.endpointId, period, start, ...emptyTotals() };
        rows.set(key, row);
      }
      row.attempts += 1;
      if (failure === null) row.successes += 1;
      else row.failures[failure] += 1;
      row.durationSumMs += a.durationMs;
      countIn(row.latency, a.durationMs);
      if (a.lagMs !== null) {
        row.firstSuccesses += 1;
        countIn(row.lag, a.lagMs);
      }
    }
  }
  return [...rows.values()].sort(
    (x, y) =>
      x.endpointId - y.endpointId ||
      ROLLUP_PERIODS.indexOf(x.period) - ROLLUP_PERIODS.indexOf(y.period) ||
      x.start.getTime() - y.start.getTime(),
  );
}
