import {
  bucketCounts,
  bucketPercentiles,
  bucketValue,
  failureClass,
  HISTOGRAM_BUCKETS,
  HISTOGRAM_RELATIVE_ERROR,
  histogramBucket,
  histogramLiteral,
  HistogramSum,
  parseBucketCounts,
  parseChartLine,
  percentiles,
  periodStart,
  rollUp,
  type Histogram,
  type RolledAttempt,
} from './delivery-rollup';

describe('delivery rollups', () => {
  it('put every duration from 0.1 ms to 9 days in a bucket whose value is within 4.9 % of it', () => {
    expect(HISTOGRAM_RELATIVE_ERROR).toBeLessThan(0.05);
    let worst = 0;
    for (let ms = 0.1; ms < 7.5e8; ms *= 1.0137) {
      const value = bucketValue(histogramBucket(ms));
      worst = Math.max(worst, Math.abs(value - ms) / ms);
    }
    expect(worst).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR + 1e-12);
    expect(histogramBucket(0)).toBe(0);
    expect(histogramBucket(0.0999)).toBe(0);
    expect(histogramBucket(0.1)).toBe(1);
    expect(histogramBucket(1e12)).toBe(HISTOGRAM_BUCKETS - 1);
    expect(histogramBucket(Number.NaN)).toBe(0);
  });

  it('read nearest-rank percentiles back from a histogram', () => {
    const durations = Array.from({ length: 1000 }, (_, i) => 1 + i); // 1 … 1000 ms
    const histogram: Record<string, number> = {};
    for (const ms of durations) {
      const b = histogramBucket(ms);
      histogram[b] = (histogram[b] ?? 0) + 1;
    }
    const [p50, p95, p99, p100] = percentiles(histogram, [0.5, 0.95, 0.99, 1]);
    for (const [got, exact] of [
      [p50, 500],
      [p95, 950],
      [p99, 990],
      [p100, 1000],
    ] as const) {
      expect(Math.abs(got! - exact) / exact).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
    }
    expect(percentiles({}, [0.5])).toEqual([null]);
  });

  it('store a histogram as the counts of its first to its last bucket, and read them back', () => {
    expect(histogramLiteral({})).toBe('{}');
    expect(histogramLiteral({ 42: 3, 44: 1, 50: 0 })).toBe('[42:44]={3,0,1}');
    expect(bucketCounts({ 0: 2, 240: 1 }).counts).toHaveLength(241);
    expect(parseBucketCounts('{}')).toEqual({ lo: 1, counts: [] });
    // PostgreSQL leaves the bounds out when the lower one is 1.
    expect(parseBucketCounts('{7,0,12}')).toEqual({ lo: 1, counts: [7, 0, 12] });
    expect(parseBucketCounts('[0:2]={2,0,1}')).toEqual({ lo: 0, counts: [2, 0, 1] });
    expect(parseBucketCounts('[42:44]={3,0,1234567}')).toEqual({ lo: 42, counts: [3, 0, 1234567] });
    const literal = histogramLiteral({ 61: 9, 70: 4 });
    expect(parseBucketCounts(literal)).toEqual(bucketCounts({ 61: 9, 70: 4 }));
  });

  it("read a row back from its chart line, as the table's trigger renders it", () => {
    const row = parseChartLine(
      '1793059200000 30849 27740 619 645 1 2 1845 3 12 [42:44]={320,0,7} {}',
      3253461.3270000005,
    );
    expect(row).toEqual({
      start: new Date('2026-10-27T00:00:00.000Z'),
      attempts: 30849,
      successes: 27740,
      failures: {
        timeout: 619,
        connection_error: 645,
        redirect: 1,
        client_error: 2,
        server_error: 1845,
        other: 3,
      },
      firstSuccesses: 12,
      durationSumMs: 3253461.3270000005,
      latency: { lo: 42, counts: [320, 0, 7] },
      lag: { lo: 1, counts: [] },
    });
  });

  it('read the same percentiles from stored histograms, one or merged, as from their sum', () => {
    const histograms: Histogram[] = [
      { 42: 5, 43: 1, 60: 2 },
      { 10: 1, 44: 7 },
      {},
      { 44: 1, 120: 3, 240: 2 },
    ];
    const summed: Record<string, number> = {};
    const sum = new HistogramSum();
    for (const h of histograms) {
      for (const [bucket, count] of Object.entries(h)) {
        summed[bucket] = (summed[bucket] ?? 0) + count;
      }
      sum.add(bucketCounts(h));
    }
    const quantiles = [0.01, 0.5, 0.95, 0.99, 1];
    expect(sum.percentiles(quantiles)).toEqual(percentiles(summed, quantiles));
    // In any order, each quantile reads the same.
    const shuffled = [0.99, 0.5, 1, 0.01, 0.95];
    expect(sum.percentiles(shuffled)).toEqual(shuffled.map((q) => sum.percentiles([q])[0]));
    expect(sum.percentiles(shuffled)).toEqual(percentiles(summed, shuffled));
    expect(sum.percentiles(quantiles)[0]).toBe(bucketValue(10));
    expect(sum.percentiles(quantiles)[4]).toBe(bucketValue(240));
    const one = new HistogramSum();
    one.add(bucketCounts(histograms[0]));
    one.add(bucketCounts({}));
    expect(one.percentiles([0.5, 1])).toEqual([bucketValue(42), bucketValue(60)]);
    expect(new HistogramSum().percentiles([0.5])).toEqual([null]);
    // Buckets outside the fixed ones are ignored, as they were in a `{bucket: count}`.
    expect(bucketPercentiles(239, [1, 1, 5], [1])).toEqual([bucketValue(240)]);
  });

  it('class failures by answer or by error', () => {
    const failed = (statusCode: number | null, error: string | null = null) =>
      failureClass({ success: false, statusCode, error });
    expect(failureClass({ success: true, statusCode: 204, error: null })).toBeNull();
    expect(failed(301, 'HTTP 301')).toBe('redirect');
    expect(failed(404, 'HTTP 404')).toBe('client_error');
    expect(failed(503, 'HTTP 503')).toBe('server_error');
    expect(failed(101, 'HTTP 101')).toBe('other');
    expect(failed(null, 'timed out after 10000 ms')).toBe('timeout');
    expect(failed(null, 'connection refused')).toBe('connection_error');
    expect(failed(null, 'ENOTFOUND: getaddrinfo ENOTFOUND x.invalid')).toBe('connection_error');
    expect(failed(null, 'outcome unknown: the process stopped')).toBe('other');
    expect(failed(null, 'could not sign: bad secret')).toBe('other');
  });

  it('start periods at UTC minute, hour and day boundaries', () => {
    const at = new Date('2026-11-25T17:42:31.250Z');
    expect(periodStart(at, 'minute').toISOString()).toBe('2026-11-25T17:42:00.000Z');
    expect(periodStart(at, 'hour').toISOString()).toBe('2026-11-25T17:00:00.000Z');
    expect(periodStart(at, 'day').toISOString()).toBe('2026-11-25T00:00:00.000Z');
  });

  it('add a batch up per endpoint and period, sorted for one lock order', () => {
    const attempt = (over: Partial<RolledAttempt>): RolledAttempt => ({
      endpointId: 2,
      attemptedAt: new Date('2026-11-25T17:42:10Z'),
      durationMs: 10,
      success: true,
      statusCode: 204,
      error: null,
      lagMs: null,
      ...over,
    });
    const rows = rollUp([
      attempt({ lagMs: 1500 }),
      attempt({ success: false, statusCode: 500, error: 'HTTP 500', durationMs: 30 }),
      attempt({ endpointId: 1, attemptedAt: new Date('2026-11-25T17:43:00Z') }),
    ]);
    expect(rows.map((r) => [r.endpointId, r.period, r.start.toISOString(), r.attempts])).toEqual([
      [1, 'minute', '2026-11-25T17:43:00.000Z', 1],
      [1, 'hour', '2026-11-25T17:00:00.000Z', 1],
      [1, 'day', '2026-11-25T00:00:00.000Z', 1],
      [2, 'minute', '2026-11-25T17:42:00.000Z', 2],
      [2, 'hour', '2026-11-25T17:00:00.000Z', 2],
      [2, 'day', '2026-11-25T00:00:00.000Z', 2],
    ]);
    const minute = rows[3];
    expect(minute).toMatchObject({
      successes: 1,
      durationSumMs: 40,
      firstSuccesses: 1,
      lag: { [histogramBucket(1500)]: 1 },
      latency: { [histogramBucket(10)]: 1, [histogramBucket(30)]: 1 },
    });
    expect(minute.failures.server_error).toBe(1);
  });
});
