/**
 * The recovery probing schedule (docs/webhooks.md#endpoints-that-come-back-by-themselves), in
 * ms: the first probe `firstMs` after probing starts, each next one twice as long after the
 * last (`WEBHOOK_RECOVERY_PROBE_FIRST`), at most `maxIntervalMs` apart
 * (`WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL`), within `forMs` of the start (`WEBHOOK_RECOVERY_PROBE_FOR`).
 */
export interface ProbeSchedule {
  firstMs: number;
  maxIntervalMs: number;
  forMs: number;
}

/**
 * When the probe after `probesSent` failed probes is due, or null when it would fall after the
 * probing window (`probingSince` + `forMs`): then probing gives up. The wait after the n-th
 * failed probe is `firstMs` × 2ⁿ, at most `maxIntervalMs` (1 h, 2 h, 4 h, … 1 d by default).
 * Pure.
 * @param probingSince when probing started (the window's start).
 * @param probesSent failed probes so far, at least 1.
 * @param now when the last one was answered.
 */
export function nextProbeAt(
  probingSince: Date,
  probesSent: number,
  now: Date,
  schedule: ProbeSchedule,
): Date | null {
  const wait = Math.min(schedule.firstMs * 2 ** probesSent, schedule.maxIntervalMs);
  const at = now.getTime() + wait;
  return at > probingSince.getTime() + schedule.forMs ? null : new Date(at);
}
