import type { DeliveryStatus } from './webhook-delivery.entity';

/** What a scheduled attempt's outcome does to its delivery. */
export interface NextStep {
  status: Extract<DeliveryStatus, 'succeeded' | 'failed' | 'pending'>;
  /** Delay before the next attempt in ms; 0 when there is none. */
  delayMs: number;
}

/**
 * The retry arithmetic of docs/webhooks.md (docs/reliability.md): after failed attempt number
 * `attemptNumber` (1 = the first try), the next one waits `schedule[attemptNumber - 1]`; once
 * the schedule is used up the delivery has failed for good.
 *
 * @param attemptNumber 1-based number of the attempt just made, counting attempts closed as
 *   of unknown outcome.
 * @param schedule `WEBHOOK_RETRY_SCHEDULE` in ms.
 */
export function nextStep(attemptNumber: number, success: boolean, schedule: number[]): NextStep {
  if (success) return { status: 'succeeded', delayMs: 0 };
  if (attemptNumber > schedule.length) return { status: 'failed', delayMs: 0 };
  return { status: 'pending', delayMs: schedule[attemptNumber - 1] };
}
