/**
 * What the shared counter answered to a reservation: `granted` hits out of the `limit`, the
 * counter's value before them (`before`), and the time left in its window (ms).
 */
export interface Reservation {
  before: number;
  granted: number;
  windowMs: number;
}

/** Reserves up to `want` hits of a window of `ttlMs` for `key` in the shared counter. */
export type Reserve = (
  key: string,
  want: number,
  limit: number,
  ttlMs: number,
) => Promise<Reservation>;

/** A hit as counted: its position in the window (1-based), whether it is over the limit, time left. */
export interface CountedHit {
  /** The hit's position in the window across every process; `limit + 1` when refused. */
  totalHits: number;
  isBlocked: boolean;
  /** Milliseconds until the window ends. */
  msLeft: number;
}

interface Lease {
  /** Local time (ms) by which the shared window has surely ended: its end as seen before asking. */
  endsAt: number;
  /** Position of the next hit this process may admit, and the first it may not. */
  next: number;
  end: number;
  /** The shared counter had nothing left for this window. */
  exhausted: boolean;
}

/** Largest share of a limit one process reserves at a time (docs/api.md#rate-limits). */
export const LEASE_SHARE = 0.01;
/** Most hits reserved in one round trip, whatever the limit. */
export const MAX_LEASE = 1000;

/** How many hits a process reserves at a time under `limit`: 1 % of it, 1 to {@link MAX_LEASE}. */
export function leaseSize(limit: number): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(limit * LEASE_SHARE)));
}

/**
 * Rate-limit counting in blocks (docs/api.md#rate-limits): instead of one round trip to the
 * shared counter per hit, a process reserves a block of hits ({@link leaseSize}: 1 % of the
 * limit) and admits hits from it locally until it is spent, so the shared counter sees one
 * round trip per block. Reservations are capped at the limit atomically by the counter, so
 * all processes together never admit more than `limit` hits in a window; the price is that
 * hits a process reserved and did not use are lost for the window (at most one block per
 * process). A block is used only until the window's end as measured from before the
 * reservation was asked for, so it never outlives the shared window it was counted in. Hits
 * arriving while a reservation is under way wait for it (one round trip per key at a time).
 * Keeps at most `maxKeys` keys (least recently used first out).
 */
export class WindowLeases {
  private readonly leases = new Map<string, Lease>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly reserve: Reserve,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {}

  /**
   * Counts one hit of `key` under `limit` hits per window of `ttlMs`.
   * @throws whatever `reserve` throws (the caller decides to fail open or not).
   */
  async hit(key: string, limit: number, ttlMs: number): Promise<CountedHit> {
    let renewed = false;
    for (;;) {
      const now = this.now();
      const lease = this.leases.get(key);
      // A block just reserved is used even if its window ended meanwhile (a slow round trip):
      // it was counted in that window, and this keeps every hit to at most a few round trips.
      if (lease !== undefined && (now < lease.endsAt || renewed)) {
        const msLeft = Math.max(0, lease.endsAt - now);
        if (lease.next < lease.end) return { totalHits: lease.next++, isBlocked: false, msLeft };
        if (lease.exhausted) return { totalHits: limit + 1, isBlocked: true, msLeft };
      }
      await this.renew(key, limit, ttlMs);
      renewed = true;
    }
  }

  /** Forgets what this process holds of `key` (its shared counter is the caller's to reset). */
  forget(key: string): void {
    this.leases.delete(key);
  }

  private renew(key: string, limit: number, ttlMs: number): Promise<void> {
    let renewal = this.pending.get(key);
    if (renewal === undefined) {
      const askedAt = this.now();
      renewal = this.reserve(key, leaseSize(limit), limit, ttlMs)
        .then(({ before, granted, windowMs }) => {
          this.leases.delete(key); // re-inserted last: the map's order is least recently renewed first
          this.leases.set(key, {
            endsAt: askedAt + windowMs,
            next: before + 1,
            end: before + 1 + granted,
            exhausted: granted === 0,
          });
          if (this.leases.size > this.maxKeys) {
            this.leases.delete(this.leases.keys().next().value!);
          }
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, renewal);
    }
    return renewal;
  }
}
