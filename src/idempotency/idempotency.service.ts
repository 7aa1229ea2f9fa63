import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { IdempotencyConflictError } from './idempotency-errors';
import { IdempotencyRepository, type StoredIdempotencyKey } from './idempotency.repository';

/**
 * What to do with a request carrying an `Idempotency-Key`: run it (`claimed`), or answer with
 * the stored response (`replay`: HTTP `status` and the body as JSON text).
 */
export type IdempotencyClaim =
  { kind: 'claimed' } | { kind: 'replay'; status: number; body: string };

/** The status replayed for a completed key that has none stored (uploads answer 202). */
const DEFAULT_REPLAY_STATUS = 202;

/**
 * What an existing key means for a request with body hash `requestHash`, when it could not be
 * claimed (docs/api.md#idempotent-retries).
 *
 * @returns the stored response to replay.
 * @throws IdempotencyConflictError when the key was used with another body, or its first
 *   request is still running (no response stored yet).
 */
export function replayOf(existing: StoredIdempotencyKey, requestHash: string): IdempotencyClaim {
  if (existing.requestHash !== requestHash) throw IdempotencyConflictError.differentBody();
  if (existing.status !== 'completed' || existing.responseBody === null) {
    throw IdempotencyConflictError.stillRunning();
  }
  return {
    kind: 'replay',
    status: existing.responseStatus ?? DEFAULT_REPLAY_STATUS,
    body: existing.responseBody,
  };
}

/**
 * Idempotency keys for `POST /leads/upload` (docs/api.md#idempotent-retries), per API key, kept
 * in PostgreSQL by {@link IdempotencyRepository}. The unique (api_key_id, key) row decides
 * between simultaneous retries: one claims it, the others get a conflict. The response is
 * stored in the upload's own transaction, so an accepted import and its stored response
 * commit together.
 */
@Injectable()
export class IdempotencyService {
  constructor(private readonly keys: IdempotencyRepository) {}

  /**
   * Hex SHA-256 (64 characters) of a parsed JSON body; the same JSON text always hashes the
   * same (`undefined` hashes as `null`).
   */
  static hashBody(body: unknown): string {
    return createHash('sha256')
      .update(JSON.stringify(body ?? null))
      .digest('hex');
  }

  /**
   * Claims `key` for a request with body hash `requestHash`, or finds the stored response.
   * An expired key, or an abandoned claim of the same body, is claimed afresh.
   *
   * @throws IdempotencyConflictError (a `ConflictError`) when the key was used with another
   *   body, or the first request with it is still running.
   */
  async claim(apiKeyId: number, key: string, requestHash: string): Promise<IdempotencyClaim> {
    if (await this.keys.tryClaim(apiKeyId, key, requestHash)) return { kind: 'claimed' };
    const existing = await this.keys.find(apiKeyId, key);
    if (!existing) return this.claim(apiKeyId, key, requestHash); // released in between: try again
    return replayOf(existing, requestHash);
  }

  /**
   * Stores the response of a claimed key, in the caller's transaction.
   *
   * @param status the HTTP status to replay.
   * @param body the response body; stored as `JSON.stringify(body)` and replayed as that text.
   */
  async complete(
    manager: EntityManager,
    apiKeyId: number,
    key: string,
    status: number,
    body: unknown,
  ): Promise<void> {
    await this.keys.complete(manager, apiKeyId, key, status, JSON.stringify(body));
  }

  /** Frees a claim whose request failed, so a retry can run; a completed key is kept. */
  async release(apiKeyId: number, key: string): Promise<void> {
    await this.keys.release(apiKeyId, key);
  }

  /**
   * Deletes the stored upload responses of `apiKeyIds` that name one of `importIds`, in the
   * caller's transaction (an erasure, docs/privacy.md#erasure). A retry with one of their keys
   * is then a new upload.
   * @returns how many records were deleted.
   */
  erase(manager: EntityManager, apiKeyIds: number[], importIds: string[]): Promise<number> {
    return apiKeyIds.length === 0 || importIds.length === 0
      ? Promise.resolve(0)
      : this.keys.deleteNamingImports(manager, apiKeyIds, importIds);
  }
}
