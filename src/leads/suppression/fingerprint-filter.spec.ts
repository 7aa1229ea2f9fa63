import {
  FingerprintFilter,
  MAX_FILTER_BITS_LOG2,
  MIN_FILTER_BITS_LOG2,
} from './fingerprint-filter';

describe('FingerprintFilter (docs/privacy.md#fingerprints)', () => {
  it('holds every fingerprint added, signed or unsigned', () => {
    const filter = FingerprintFilter.sizedFor(1_000);
    const added = Uint32Array.from({ length: 500 }, () => (Math.random() * 2 ** 32) >>> 0);
    filter.addAll(added);
    filter.add(-1);
    expect(added.every((f) => filter.mayHold(f))).toBe(true);
    expect(filter.mayHold(0xffffffff)).toBe(true);
  });

  it('lets few others through: about 1.5 % when sized for what it holds', () => {
    const filter = FingerprintFilter.sizedFor(50_000);
    for (let i = 0; i < 50_000; i++) filter.add((Math.random() * 2 ** 32) >>> 0);
    let through = 0;
    for (let i = 0; i < 100_000; i++)
      if (filter.mayHold((Math.random() * 2 ** 32) >>> 0)) through++;
    expect(through / 100_000).toBeGreaterThan(0.005);
    expect(through / 100_000).toBeLessThan(0.03);
  });

  it('is sized between 8 KiB and 8 MiB, and grows when it would hold more than its capacity', () => {
    expect(FingerprintFilter.sizedFor(0).bitsLog2).toBe(MIN_FILTER_BITS_LOG2);
    expect(FingerprintFilter.sizedFor(0).bytes).toBe(8 * 1024);
    expect(FingerprintFilter.sizedFor(10_000_000).bitsLog2).toBe(MAX_FILTER_BITS_LOG2);
    expect(FingerprintFilter.sizedFor(10_000_000).bytes).toBe(8 * 1024 * 1024);
    expect(FingerprintFilter.sizedFor(10_000_000).capacity).toBe(Number.POSITIVE_INFINITY);
    const small = FingerprintFilter.sizedFor(1_000);
    expect(small.capacity).toBeGreaterThanOrEqual(2_000);
    expect(FingerprintFilter.sizedFor(small.capacity * 2).bitsLog2).toBeGreaterThan(small.bitsLog2);
  });
});
