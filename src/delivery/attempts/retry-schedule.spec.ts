import { nextStep, type AttemptAnswer } from './retry-schedule';

const ok: AttemptAnswer = { success: true, statusCode: 200 };
const failed: AttemptAnswer = { success: false, statusCode: 500 };
const answer = (statusCode: number | null, retryAfterMs?: number | null): AttemptAnswer => ({
  success: false,
  statusCode,
  retryAfterMs,
});

describe('nextStep (the retry schedule)', () => {
  const schedule = [5_000, 300_000, 1_800_000];

  it('ends a delivery on success, whatever the attempt', () => {
    expect(nextStep(1, ok, schedule)).toEqual({ status: 'succeeded', delayMs: 0 });
    expect(nextStep(9, ok, schedule)).toEqual({ status: 'succeeded', delayMs: 0 });
  });

  it('waits the n-th delay after the n-th failed attempt', () => {
    expect(nextStep(1, failed, schedule)).toEqual({ status: 'pending', delayMs: 5_000 });
    expect(nextStep(2, failed, schedule)).toEqual({ status: 'pending', delayMs: 300_000 });
    expect(nextStep(3, answer(null), schedule)).toEqual({ status: 'pending', delayMs: 1_800_000 });
  });

  it('fails for good once every retry was used (one first try plus one per delay)', () => {
    expect(nextStep(4, failed, schedule)).toEqual({ status: 'failed', delayMs: 0 });
    expect(nextStep(1, failed, [])).toEqual({ status: 'failed', delayMs: 0 });
  });

  it('fails at once on 410 Gone, with retries left', () => {
    expect(nextStep(1, answer(410), schedule)).toEqual({ status: 'failed', delayMs: 0 });
    expect(nextStep(1, answer(410, 2_000), schedule)).toEqual({ status: 'failed', delayMs: 0 });
  });

  it('waits what a 429 or 503 asks with Retry-After instead of the step', () => {
    expect(nextStep(1, answer(429, 60_000), schedule)).toEqual({
      status: 'pending',
      delayMs: 60_000,
    });
    expect(nextStep(2, answer(503, 2_000), schedule)).toEqual({
      status: 'pending',
      delayMs: 2_000,
    });
  });

  it('bounds Retry-After by the last step and by one second', () => {
    expect(nextStep(1, answer(429, 86_400_000), schedule)).toEqual({
      status: 'pending',
      delayMs: 1_800_000,
    });
    expect(nextStep(1, answer(503, 0), schedule)).toEqual({ status: 'pending', delayMs: 1_000 });
    expect(nextStep(1, answer(429, 250), schedule)).toEqual({ status: 'pending', delayMs: 1_000 });
  });

  it('keeps the schedule without a Retry-After, or for other statuses', () => {
    expect(nextStep(1, answer(429, null), schedule)).toEqual({ status: 'pending', delayMs: 5_000 });
    expect(nextStep(1, answer(503), schedule)).toEqual({ status: 'pending', delayMs: 5_000 });
    expect(nextStep(1, answer(500, 2_000), schedule)).toEqual({
      status: 'pending',
      delayMs: 5_000,
    });
  });

  it('still spends an attempt: a Retry-After after the last attempt does not extend the budget', () => {
    expect(nextStep(4, answer(429, 2_000), schedule)).toEqual({ status: 'failed', delayMs: 0 });
  });
});
