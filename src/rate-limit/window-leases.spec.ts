import { leaseSize, WindowLeases, type Reservation } from './window-leases';

/** A shared counter like the Redis script: atomic, capped at the limit, one window at a time. */
function sharedCounter(now: () => number) {
  const windows = new Map<string, { count: number; endsAt: number }>();
  let roundTrips = 0;
  const reserve = (key: string, want: number, limit: number, ttlMs: number) => {
    roundTrips++;
    let window = windows.get(key);
    if (window === undefined || now() >= window.endsAt) {
      window = { count: 0, endsAt: now() + ttlMs };
      windows.set(key, window);
    }
    const before = window.count;
    const granted = Math.max(0, Math.min(want, limit - before));
    window.count += granted;
    return Promise.resolve<Reservation>({ before, granted, windowMs: window.endsAt - now() });
  };
  return { reserve, roundTrips: () => roundTrips };
}

describe('WindowLeases', () => {
  it('reserves 1 % of the limit at a time, between 1 and 1,000', () => {
    expect(leaseSize(20)).toBe(1);
    expect(leaseSize(1200)).toBe(12);
    expect(leaseSize(1_000_000)).toBe(1000);
  });

  it('admits exactly the limit in a window across three processes, then refuses with the time left', async () => {
    const now = () => 0;
    const counter = sharedCounter(now);
    const processes = [1, 2, 3].map(() => new WindowLeases(counter.reserve, now));
    const limit = 1200;
    const hits = await Promise.all(
      Array.from({ length: 2000 }, (_, i) => processes[i % 3].hit('key-1', limit, 60_000)),
    );
    const admitted = hits.filter((h) => !h.isBlocked);
    // Every block is capped by the shared counter: never over the limit; unused blocks at most
    // one per process (12 hits each here).
    expect(admitted.length).toBeLessThanOrEqual(limit);
    expect(admitted.length).toBeGreaterThanOrEqual(limit - 3 * leaseSize(limit));
    expect(new Set(admitted.map((h) => h.totalHits)).size).toBe(admitted.length);
    expect(hits.find((h) => h.isBlocked)).toEqual({
      totalHits: limit + 1,
      isBlocked: true,
      msLeft: 60_000,
    });
    // One round trip per block, not per hit (plus one per process to learn it is exhausted).
    expect(counter.roundTrips()).toBeLessThanOrEqual(limit / leaseSize(limit) + 3 + 3);
  });

  it('starts over when the window ends, and never uses a block past its window', async () => {
    let clock = 0;
    const now = () => clock;
    const counter = sharedCounter(now);
    const leases = new WindowLeases(counter.reserve, now);
    for (let i = 0; i < 3; i++) expect((await leases.hit('k', 3, 1000)).isBlocked).toBe(false);
    expect(await leases.hit('k', 3, 1000)).toMatchObject({ isBlocked: true, msLeft: 1000 });
    clock = 999;
    expect(await leases.hit('k', 3, 1000)).toMatchObject({ isBlocked: true, msLeft: 1 });
    clock = 1000;
    expect(await leases.hit('k', 3, 1000)).toEqual({
      totalHits: 1,
      isBlocked: false,
      msLeft: 1000,
    });
  });

  it('asks the shared counter once for concurrent hits that need a new block', async () => {
    const counter = sharedCounter(() => 0);
    const leases = new WindowLeases(counter.reserve, () => 0);
    const hits = await Promise.all(
      Array.from({ length: 50 }, () => leases.hit('k', 100_000, 60_000)),
    );
    expect(counter.roundTrips()).toBe(1);
    expect(hits.map((h) => h.totalHits).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it('passes the shared counter’s failure to the caller and asks again next time', async () => {
    let fail = true;
    const counter = sharedCounter(() => 0);
    const leases = new WindowLeases(
      (...args) => (fail ? Promise.reject(new Error('down')) : counter.reserve(...args)),
      () => 0,
    );
    await expect(leases.hit('k', 10, 1000)).rejects.toThrow('down');
    fail = false;
    await expect(leases.hit('k', 10, 1000)).resolves.toMatchObject({ totalHits: 1 });
  });

  it('keeps at most maxKeys keys, dropping the least recently renewed', async () => {
    const counter = sharedCounter(() => 0);
    const leases = new WindowLeases(counter.reserve, () => 0, 2);
    await leases.hit('a', 1000, 1000);
    await leases.hit('b', 1000, 1000);
    await leases.hit('c', 1000, 1000);
    const before = counter.roundTrips();
    await leases.hit('c', 1000, 1000); // still held
    expect(counter.roundTrips()).toBe(before);
    await leases.hit('a', 1000, 1000); // dropped: asks again
    expect(counter.roundTrips()).toBe(before + 1);
  });
});
