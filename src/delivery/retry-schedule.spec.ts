import { nextStep } from './retry-schedule';

describe('nextStep (the retry schedule)', () => {
  const schedule = [5_000, 300_000, 1_800_000];

  it('ends a delivery on success, whatever the attempt', () => {
    expect(nextStep(1, true, schedule)).toEqual({ status: 'succeeded', delayMs: 0 });
    expect(nextStep(9, true, schedule)).toEqual({ status: 'succeeded', delayMs: 0 });
  });

  it('waits the n-th delay after the n-th failed attempt', () => {
    expect(nextStep(1, false, schedule)).toEqual({ status: 'pending', delayMs: 5_000 });
    expect(nextStep(2, false, schedule)).toEqual({ status: 'pending', delayMs: 300_000 });
    expect(nextStep(3, false, schedule)).toEqual({ status: 'pending', delayMs: 1_800_000 });
  });

  it('fails for good once every retry was used (one first try plus one per delay)', () => {
    expect(nextStep(4, false, schedule)).toEqual({ status: 'failed', delayMs: 0 });
    expect(nextStep(1, false, [])).toEqual({ status: 'failed', delayMs: 0 });
  });
});
