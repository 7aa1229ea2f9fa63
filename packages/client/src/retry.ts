/**
 * When and how long {@link CampaignApiClient} waits before sending a request again
 * (docs/client.md#retries).
 */
export interface RetryOptions {
  /** Retries after the first attempt (so `retries + 1` requests at most). Default 5. */
  retries?: number;
  /** First backoff in ms; doubles every retry, with full jitter. Default 500. */
  baseDelayMs?: number;
  /** Longest single wait in ms, `Retry-After` included. Default 30,000. */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  retries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/**
 * Statuses worth sending again unchanged: 408 (the request arrived too slowly), 429 and 503
 * (come back after `Retry-After`), 500/502/504 (a fault or a proxy's; an upload is safe to
 * resend under its `Idempotency-Key`). 409 only for an upload whose key's first request is
 * still running (`idempotency_conflict`, decided by the caller).
 */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * `Retry-After` in seconds: a number of seconds, or an HTTP date (relative to `now`);
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The wait before retry number `retry` (1-based): `Retry-After` when the answer had one,
 * else exponential backoff with full jitter (`random() * baseDelayMs * 2^(retry-1)`); never
 * more than `maxDelayMs`.
 */
export function retryDelayMs(
  retry: number,
  options: Required<RetryOptions>,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== undefined) {
    return Math.min(retryAfterSeconds * 1000, options.maxDelayMs);
  }
  const ceiling = Math.min(options.baseDelayMs * 2 ** (retry - 1), options.maxDelayMs);
  return Math.round(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
