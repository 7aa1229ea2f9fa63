import { cachedLookup } from './cached-lookup';

describe('cachedLookup', () => {
  it('runs the look-up once for all calls within its time to live, then again', async () => {
    let now = 1_000;
    let runs = 0;
    const lookUp = cachedLookup(
      5_000,
      async () => ++runs,
      () => now,
    );
    expect(await Promise.all([lookUp(), lookUp(), lookUp()])).toEqual([1, 1, 1]);
    now += 4_999;
    expect(await lookUp()).toBe(1);
    now += 1;
    expect(await lookUp()).toBe(2);
    expect(runs).toBe(2);
  });

  it('keeps no failure: the next call runs the look-up again', async () => {
    let runs = 0;
    const lookUp = cachedLookup(60_000, async () => {
      runs += 1;
      if (runs === 1) throw new Error('database down');
      return runs;
    });
    await expect(lookUp()).rejects.toThrow('database down');
    expect(await lookUp()).toBe(2);
  });
});
