import type { DeliveryStatus } from '../deliveries';

/** What a scheduled attempt's outcome does to its delivery. */
export interface NextStep {
  status: Extract<DeliveryStatus, 'succeeded' | 'failed' | 'pending'>;
  /** Delay before the next attempt in ms; 0 when there is none. */
  delayMs: number;
}

/** What {@link nextStep} needs of an attempt's answer (a `SendResult`). */
export interface AttemptAnswer {
  /** A 2xx within the time limit. */
  success: boolean;
  /** The response's status; null when no response came (timeout, refused, …). */
  statusCode: number | null;
  /** The delay the response asked for with `Retry-After`, in ms; null or absent without one. */
  retryAfterMs?: number | null;
}

/** The status that tells a sender the endpoint is gone for good (docs/webhooks.md#disabled-endpoints). */
export const GONE = 410;

/** The statuses whose `Retry-After` moves the next attempt (docs/webhooks.md#busy-receivers-429-and-503). */
export const BUSY_STATUSES: readonly number[] = [429, 503];

/** The shortest delay a `Retry-After` can ask for, in ms. */
export const MIN_RETRY_AFTER_MS = 1_000;

/**
 * The retry arithmetic of docs/webhooks.md#success-retries-and-health (docs/reliability.md):
 * after failed attempt number `attemptNumber` (1 = the first try), the next one waits
 * `schedule[attemptNumber - 1]`; once the schedule is used up the delivery has failed for
 * good. Two answers change that (docs/webhooks.md#disabled-endpoints,
 * docs/webhooks.md#busy-receivers-429-and-503):
 * - 410 Gone fails the delivery at once, whatever retries are left;
 * - 429 or 503 with a valid `Retry-After` waits that long instead of the schedule's step,
 *   at least {@link MIN_RETRY_AFTER_MS} and at most the schedule's last step. It still uses
 *   one of the schedule's attempts.
 *
 * @param attemptNumber 1-based number of the attempt just made, counting attempts closed as
 *   of unknown outcome.
 * @param answer the attempt's result.
 * @param schedule `WEBHOOK_RETRY_SCHEDULE` in ms.
 */
export function nextStep(
  attemptNumber: number,
  answer: AttemptAnswer,
  schedule: readonly number[],
): NextStep {
  if (answer.success) return { status: 'succeeded', delayMs: 0 };
  if (answer.statusCode === GONE || attemptNumber > schedule.length) {
    return { status: 'failed', delayMs: 0 };
  }
  const step = schedule[attemptNumber - 1];
  const asked = answer.retryAfterMs;
  if (
    answer.statusCode === null ||
    !BUSY_STATUSES.includes(answer.statusCode) ||
    asked === null ||
    asked === undefined
  ) {
    return { status: 'pending', delayMs: step };
  }
  const longest = schedule[schedule.length - 1];
  return {
    status: 'pending',
    delayMs: Math.max(MIN_RETRY_AFTER_MS, Math.min(asked, longest)),
  };
}
