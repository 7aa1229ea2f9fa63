import type { DeliveryStats } from '../api/stats-queries';

/** The failure classes in the order the outcome chart stacks them, with their legend labels. */
export const FAILURE_SERIES = [
  { key: 'timeout', label: 'Timeout', color: 'orange.6' },
  { key: 'connection_error', label: 'Connection error', color: 'grape.6' },
  { key: 'redirect', label: 'Redirect (3xx)', color: 'yellow.6' },
  { key: 'client_error', label: 'Client error (4xx)', color: 'pink.6' },
  { key: 'server_error', label: 'Server error (5xx)', color: 'red.7' },
  { key: 'other', label: 'Other failure', color: 'gray.6' },
] as const;

const FORMATS: Record<DeliveryStats['resolution'], Intl.DateTimeFormatOptions> = {
  minute: { hour: '2-digit', minute: '2-digit' },
  hour: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
  day: { month: 'short', day: 'numeric' },
};

/** A point's label on the time axis, in the browser's time zone. */
export function pointLabel(start: string, resolution: DeliveryStats['resolution']): string {
  return new Intl.DateTimeFormat(undefined, FORMATS[resolution]).format(new Date(start));
}

/** One row per point, in the shape the charts read (percent and ms; null where no attempts). */
export function chartRows(stats: DeliveryStats) {
  return stats.points.map((p) => ({
    time: pointLabel(p.start, stats.resolution),
    succeeded: p.successes,
    ...Object.fromEntries(FAILURE_SERIES.map((s) => [s.key, p.failures[s.key]])),
    success_rate: p.success_rate === null ? null : Math.round(p.success_rate * 1000) / 10,
    p50: p.latency_ms.p50,
    p95: p.latency_ms.p95,
    p99: p.latency_ms.p99,
    lag_p50: p.lag_ms.p50,
    lag_p95: p.lag_ms.p95,
  }));
}
