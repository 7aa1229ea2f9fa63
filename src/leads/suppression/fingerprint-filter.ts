/** Fewest bits a filter has (8 KiB), so a short list costs next to nothing to hold. */
export const MIN_FILTER_BITS_LOG2 = 16;
/** Most bits a filter has (8 MiB): past 2,097,152 entries it lets more leads through to the lookup. */
export const MAX_FILTER_BITS_LOG2 = 26;
/**
 * Bits per entry a filter is sized for: when it holds that many entries, about 3 % of
 * fingerprints fall on a set bit (1.5 % when it is made, with room to grow to twice as many).
 */
const BITS_PER_ENTRY = 32;

/**
 * A superset of an account's suppression list, in memory (docs/privacy.md#fingerprints): one
 * bit per bucket of the entries' 32-bit fingerprints, the bucket being the fingerprint's low
 * bits. A lead whose fingerprints fall on no set bit is not on the list; one that falls on a
 * set bit may be, and is looked up by its keyed hash. Entries removed from the list leave
 * their bit set (the filter only ever lets more leads through), until it is rebuilt.
 */
export class FingerprintFilter {
  private readonly words: Uint32Array;
  private readonly mask: number;

  /** @param bitsLog2 log2 of the number of bits, in [{@link MIN_FILTER_BITS_LOG2}, {@link MAX_FILTER_BITS_LOG2}]. */
  constructor(readonly bitsLog2: number) {
    this.words = new Uint32Array(2 ** (bitsLog2 - 5));
    this.mask = 2 ** bitsLog2 - 1;
  }

  /** A filter sized for `entries` entries, with room to grow to twice as many. */
  static sizedFor(entries: number): FingerprintFilter {
    const wanted = Math.ceil(Math.log2(Math.max(1, entries * 2 * BITS_PER_ENTRY)));
    return new FingerprintFilter(
      Math.min(MAX_FILTER_BITS_LOG2, Math.max(MIN_FILTER_BITS_LOG2, wanted)),
    );
  }

  /** How many entries the filter was sized for at most; past it, it is rebuilt larger. */
  get capacity(): number {
    return this.bitsLog2 === MAX_FILTER_BITS_LOG2
      ? Number.POSITIVE_INFINITY
      : 2 ** this.bitsLog2 / BITS_PER_ENTRY;
  }

  /** Bytes the filter holds. */
  get bytes(): number {
    return this.words.byteLength;
  }

  /** Sets the bits of many fingerprints. */
  addAll(fingerprints: ArrayLike<number>): void {
    for (let i = 0; i < fingerprints.length; i++) this.add(fingerprints[i]);
  }

  /** Sets the bit of one fingerprint (an unsigned or signed 32-bit integer). */
  add(fingerprint: number): void {
    const bucket = fingerprint & this.mask;
    this.words[bucket >>> 5] |= 1 << (bucket & 31);
  }

  /** Whether an identifier with this fingerprint may be on the list. */
  mayHold(fingerprint: number): boolean {
    const bucket = fingerprint & this.mask;
    return (this.words[bucket >>> 5] & (1 << (bucket & 31))) !== 0;
  }
}
