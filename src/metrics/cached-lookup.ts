/**
 * Wraps a look-up so that all calls within `ttlMs` of its start share one run: many scrapes
 * (several Prometheus servers, a dashboard refreshing) cost one query. A failed run is not
 * kept: the next call runs it again.
 *
 * @param ttlMs how long a run's result is reused, in ms, counted from its start.
 * @param load the look-up.
 * @param now the clock, in ms (tests).
 */
export function cachedLookup<T>(
  ttlMs: number,
  load: () => Promise<T>,
  now: () => number = Date.now,
): () => Promise<T> {
  let current: { startedAt: number; result: Promise<T> } | null = null;
  return () => {
    const at = now();
    if (current === null || at - current.startedAt >= ttlMs) {
      const run = { startedAt: at, result: load() };
      current = run;
      run.result.catch(() => {
        if (current === run) current = null;
      });
    }
    return current.result;
  };
}
