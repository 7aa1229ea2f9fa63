// Figures over samples, for bench/run.mjs and the single-purpose benchmarks.

/** Nearest-rank percentile of an ascending array; null for an empty one. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Median (the mean of the two middle values for an even count); null for no values. */
export function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** a / b, or null when either is missing or b is 0. */
export const ratioOf = (a, b) => (a == null || b == null || b === 0 ? null : a / b);
