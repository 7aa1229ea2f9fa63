import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../../redis/redis-connection';
import { throttleKeys } from '../outbox';

/**
 * An endpoint's throttle (docs/webhooks.md#throttling): most deliveries per second and most
 * attempts in flight, each null for unlimited.
 */
export interface ThrottleLimits {
  /** Deliveries per second, 1 to 1,000; null: unlimited. */
  maxDeliveriesPerSecond: number | null;
  /** Attempts in flight at once, 1 to 100; null: unlimited. */
  maxInFlight: number | null;
}

/** Which limit held an attempt back: the rate, or the attempts in flight. */
export type ThrottleLimit = 'rate' | 'in_flight';

/**
 * What the throttle answered to a request for `want` attempts: the first `granted` may start
 * now (each holding one of `leases` while the endpoint has an in-flight limit); the rest wait
 * `waitMs` before asking again, held back by `limitedBy`.
 */
export interface ThrottleGrant {
  granted: number;
  /** One lease id per granted attempt while the endpoint has an in-flight limit, else empty. */
  leases: string[];
  /** ms the attempts not granted wait before they ask again; 0 when all were granted. */
  waitMs: number;
  /** The limit that held back the attempts not granted; null when all were granted. */
  limitedBy: ThrottleLimit | null;
}

/**
 * How far ahead of its turn (ms) an attempt may still start: the jitter of a delayed job's
 * return. It lets up to `1 + rate × 0.05` attempts through at once (1 below 20/s), so over a
 * few seconds the rate is within a few % of the limit.
 */
export const THROTTLE_TOLERANCE_MS = 50;
/**
 * How late (ms) a waiter may come back and still start on the turn reserved for it: the usual
 * delay of a delayed job's return on a busy queue, and the most that turns claimed late can
 * bunch together.
 */
export const THROTTLE_TURN_LATENESS_MS = 200;
/** Longest wait the throttle hands out (ms): a waiter asks again at least this often. */
export const MAX_THROTTLE_WAIT_MS = 60_000;
/** How much longer than the attempt timeout an in-flight lease lasts (ms). */
export const THROTTLE_LEASE_MARGIN_MS = 5_000;
/** The attempt duration assumed before one was measured (ms), for in-flight waits. */
const DEFAULT_ATTEMPT_MS = 100;

const LIMITED_BY: Array<ThrottleLimit | null> = [null, 'rate', 'in_flight'];

/**
 * One call, atomic. KEYS[1]: the endpoint's state (hash: `tat`, the GCRA's theoretical
 * arrival time; `wake`, the next turn handed to a waiter without a ticket; `avg`, the mean
 * attempt duration; `limits`, the limits it was last asked with), KEYS[2]: its leases (sorted
 * set, member: lease id, score: expiry), KEYS[3]: its tickets (sorted set, member: the waiter's
 * ticket, score: the time of the turn reserved for it), KEYS[4]: the waiters put back (sorted
 * set, member: ticket, score: when it comes back), which a change of the endpoint's limits
 * wakes. ARGV: emission interval ms (0: no rate limit), tolerance ms, most in flight
 * (0: none), attempts wanted, lease ms, lease id prefix, longest wait ms, ticket ('' for none),
 * how late a turn may still be claimed (ms).
 * Times are Redis's own clock, so every worker counts alike.
 *
 * A waiter with a ticket held back by the rate gets a turn of its own: the next free one is
 * reserved for it (the GCRA moves past it, so nobody else takes it) and it is told to come
 * back then; coming back, it starts on its turn even if it is up to
 * {@link THROTTLE_TURN_LATENESS_MS} late, so a waiter held up by a busy queue costs the
 * endpoint no capacity, and turns claimed late bunch no more than that. A later waiter's turn
 * is gone: it is given a new one. Turns not claimed within a minute are forgotten. A waiter
 * never waits more than the longest wait: one whose turn is further away comes back and is
 * told to wait again. Asked with other limits than last time (the endpoint's limits were
 * changed), the script forgets the turns and the schedule made under the old ones: waiters are
 * served under the new limits when they come back.
 * Returns {granted, wait ms, limited by (0 none, 1 rate, 2 in flight)}.
 */
const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tau = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
local leaseMs = tonumber(ARGV[5])
local maxWait = tonumber(ARGV[7])
local ticket = ARGV[8]
local granted = want
local limitedBy = 0
local avg = tonumber(redis.call('HGET', KEYS[1], 'avg') or '${DEFAULT_ATTEMPT_MS}')
local turn = nil
local limits = ARGV[1] .. '/' .. ARGV[3]
if redis.call('HGET', KEYS[1], 'limits') ~= limits then
  redis.call('HDEL', KEYS[1], 'tat', 'wake')
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[1], 'limits', limits)
end
if interval > 0 and ticket ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - 60000)
  turn = tonumber(redis.call('ZSCORE', KEYS[3], ticket))
  -- Back before its turn: it waits for it, nothing taken.
  if turn and turn > now + tau then
    local back = math.min(turn - tau - now, maxWait)
    redis.call('ZADD', KEYS[4], now + back, ticket)
    return { 0, math.ceil(back), 1 }
  end
  -- Back too late: the turn is gone (claimed now, it would bunch with the next ones).
  if turn and turn < now - tonumber(ARGV[9]) then
    redis.call('ZREM', KEYS[3], ticket)
    turn = nil
  end
end
if cap > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  local free = math.max(0, cap - redis.call('ZCARD', KEYS[2]))
  if free < granted then granted = free; limitedBy = 2 end
end
local tat = now
if interval > 0 then
  tat = math.max(tonumber(redis.call('HGET', KEYS[1], 'tat') or '0'), now)
  local allowed = 0
  if tat - now <= tau then allowed = math.floor((now + tau - tat) / interval) + 1 end
  -- Its reserved turn is one more, already counted.
  if turn then allowed = allowed + 1 end
  if allowed < granted then granted = allowed; limitedBy = 1 end
  local taken = granted
  if turn and granted > 0 then
    redis.call('ZREM', KEYS[3], ticket)
    taken = granted - 1
    turn = nil
  end
  if taken > 0 then
    tat = tat + taken * interval
    redis.call('HSET', KEYS[1], 'tat', tat)
  end
end
if cap > 0 and granted > 0 then
  for i = 1, granted do redis.call('ZADD', KEYS[2], now + leaseMs, ARGV[6] .. ':' .. i) end
  redis.call('PEXPIRE', KEYS[2], leaseMs + 60000)
end
local wait = 0
if granted < want then
  if limitedBy == 1 and ticket ~= '' and not turn then
    -- The next free turn, reserved for this waiter, who may claim it from tau before it.
    redis.call('ZADD', KEYS[3], tat, ticket)
    redis.call('PEXPIRE', KEYS[3], math.ceil(tat - now) + 120000)
    wait = math.min(tat - tau - now, maxWait)
    tat = tat + interval
    redis.call('HSET', KEYS[1], 'tat', tat)
  else
    local ready = now
    local step = 0
    if interval > 0 then ready = math.max(ready, tat - tau); step = interval end
    if cap > 0 and limitedBy == 2 then
      step = math.max(step, avg / cap)
      ready = math.max(ready, now + step)
    end
    local wake = math.max(tonumber(redis.call('HGET', KEYS[1], 'wake') or '0'), ready)
    wake = math.min(wake, now + maxWait)
    wait = wake - now
    redis.call('HSET', KEYS[1], 'wake', math.min(wake + step, now + maxWait))
  end
end
if ticket ~= '' then
  if granted < want then
    redis.call('ZADD', KEYS[4], now + wait, ticket)
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - 60000)
    redis.call('PEXPIRE', KEYS[4], math.ceil(wait) + 120000)
  else
    redis.call('ZREM', KEYS[4], ticket)
  end
end
redis.call('PEXPIRE', KEYS[1], math.ceil(math.max(tat - now, wait)) + 60000)
return { granted, math.ceil(wait), limitedBy }`;

/**
 * Ends attempts. KEYS[1], KEYS[2] as for the acquire script; ARGV[1]: the attempts' duration
 * (ms), ARGV[2…]: their lease ids. Frees their slots and folds the duration into the mean.
 */
const RELEASE_SCRIPT = `
redis.call('ZREM', KEYS[2], unpack(ARGV, 2))
local d = tonumber(ARGV[1])
local avg = tonumber(redis.call('HGET', KEYS[1], 'avg') or tostring(d))
redis.call('HSET', KEYS[1], 'avg', avg * 0.8 + d * 0.2)
return 1`;

type ThrottlingRedis = (Redis | Cluster) & {
  throttleAcquire(
    state: string,
    leases: string,
    tickets: string,
    held: string,
    intervalMs: number,
    toleranceMs: number,
    maxInFlight: number,
    want: number,
    leaseMs: number,
    leasePrefix: string,
    maxWaitMs: number,
    ticket: string,
    turnLatenessMs: number,
  ): Promise<[number, number, number]>;
  throttleRelease(state: string, leases: string, durationMs: number, ...ids: string[]): Promise<1>;
};

/** Whether an endpoint has no throttle at all: its attempts never ask Redis. */
export function isUnthrottled(limits: ThrottleLimits): boolean {
  return limits.maxDeliveriesPerSecond === null && limits.maxInFlight === null;
}

/**
 * Per-endpoint throttling shared by every worker process through Redis
 * (docs/webhooks.md#throttling). The rate is a GCRA (a token bucket kept as one timestamp)
 * with a tolerance of {@link THROTTLE_TOLERANCE_MS}; attempts in flight are leases in a sorted
 * set that expire after `leaseMs` (the attempt timeout and a margin), so the slot of a worker
 * killed mid-attempt comes back by itself. Both are checked and taken in one Lua script on
 * Redis's clock. An attempt held back is told when to ask again: waiters are handed turns one
 * emission interval apart: a waiter with a ticket (its job's id) gets a turn reserved for it,
 * which it keeps if it comes back at most {@link THROTTLE_TURN_LATENESS_MS} late; one held back by the in-flight limit is told to
 * come back one mean attempt duration ÷ the limit after the previous waiter, so they do not
 * all come back at once.
 *
 * Keys: `{<namespace>:endpoint:<id>}:throttle`, `…:throttle:leases` and `…:throttle:tickets`, one hash tag per
 * endpoint, so on a Redis Cluster both keys of a script share a slot and endpoints spread over
 * the slots. An endpoint with neither limit never reaches Redis ({@link isUnthrottled}).
 *
 * When Redis cannot be reached the attempt goes ahead and a warning is logged (at most one
 * every 10 s): the worker's jobs live in the same Redis, so this lasts only as long as a job
 * already taken.
 */
export class EndpointThrottle implements OnModuleDestroy {
  private readonly logger = new Logger(EndpointThrottle.name);
  private readonly redis: ThrottlingRedis;
  private lastWarningAt = 0;

  /**
   * @param redis a client of its own (closed with the module).
   * @param namespace the deployment's Redis namespace (`QUEUE_PREFIX` or the derived one).
   * @param leaseMs how long an in-flight slot is held at most, ms: the attempt timeout and a margin.
   */
  constructor(
    redis: RedisClient,
    private readonly namespace: string,
    private readonly leaseMs: number,
  ) {
    this.redis = redis as ThrottlingRedis;
    this.redis.on('error', () => undefined);
    this.redis.defineCommand('throttleAcquire', { numberOfKeys: 4, lua: ACQUIRE_SCRIPT });
    this.redis.defineCommand('throttleRelease', { numberOfKeys: 2, lua: RELEASE_SCRIPT });
  }

  /**
   * Asks for `want` attempts to endpoint `endpointId` now. Without limits, grants them all at
   * once without asking Redis.
   * @param ticket who asks, the same each time it comes back (the job's id): held back by the
   *   rate, it is given a turn of its own and told to come back then; without one, it is told
   *   when to ask again, with no turn kept for it.
   * @returns how many may start, their leases, and how long the rest wait.
   */
  async acquire(
    endpointId: number,
    limits: ThrottleLimits,
    want: number,
    ticket = '',
  ): Promise<ThrottleGrant> {
    if (isUnthrottled(limits) || want <= 0) return allGranted(want);
    const rate = limits.maxDeliveriesPerSecond;
    const prefix = randomUUID();
    try {
      const { state, leases: leaseKey, tickets, held } = this.keys(endpointId);
      const [granted, waitMs, limitedBy] = await this.redis.throttleAcquire(
        state,
        leaseKey,
        tickets,
        held,
        rate === null ? 0 : 1000 / rate,
        THROTTLE_TOLERANCE_MS,
        limits.maxInFlight ?? 0,
        want,
        this.leaseMs,
        prefix,
        MAX_THROTTLE_WAIT_MS,
        ticket,
        THROTTLE_TURN_LATENESS_MS,
      );
      const leases =
        limits.maxInFlight === null
          ? []
          : Array.from({ length: granted }, (_, i) => `${prefix}:${i + 1}`);
      return { granted, leases, waitMs, limitedBy: LIMITED_BY[limitedBy] ?? null };
    } catch (error) {
      this.warn(`Endpoint throttle not applied, Redis unavailable: ${(error as Error).message}`);
      return allGranted(want);
    }
  }

  /**
   * Ends one attempt that held `lease` (from {@link acquire}), which took `durationMs`: its
   * in-flight slot is free again. Never throws (an unreleased lease expires by itself).
   */
  async release(endpointId: number, lease: string, durationMs: number): Promise<void> {
    try {
      const { state, leases } = this.keys(endpointId);
      await this.redis.throttleRelease(state, leases, Math.max(0, durationMs), lease);
    } catch (error) {
      this.warn(`Endpoint throttle lease not released: ${(error as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.redis.disconnect();
  }

  private keys(endpointId: number) {
    return throttleKeys(this.namespace, endpointId);
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarningAt < 10_000) return;
    this.lastWarningAt = now;
    this.logger.warn(message);
  }
}

function allGranted(want: number): ThrottleGrant {
  return { granted: Math.max(0, want), leases: [], waitMs: 0, limitedBy: null };
}
