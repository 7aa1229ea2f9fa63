import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';

/** What to do with a request carrying an `Idempotency-Key`. */
export type IdempotencyClaim =
  { kind: 'claimed' } | { kind: 'replay'; status: number; body: string };

/** How long a response is replayed (docs/api.md#idempotent-retries). */
const RETENTION = '24 hours';
/** How long a first request may run before its claim counts as abandoned (a crashed process). */
const CLAIM_LEASE = '5 minutes';

/**
 * Idempotency keys for `POST /leads/upload` (docs/api.md#idempotent-retries), per API key, in PostgreSQL. The
 * unique (api_key_id, key) row decides between simultaneous retries: one claims it, the
 * others get 409. The response is stored in the upload's own transaction, so an accepted
 * import and its stored response commit together.
 */
@Injectable()
export class IdempotencyService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Hex SHA-256 of a parsed JSON body; the same JSON text always hashes the same. */
  static hashBody(body: unknown): string {
    return createHash('sha256')
      .update(JSON.stringify(body ?? null))
      .digest('hex');
  }

  /**
   * Claims `key` for a request with body hash `requestHash`, or finds the stored response.
   * An expired key, or an abandoned claim of the same body, is claimed afresh.
   * @throws ApiError 409 `idempotency_conflict` when the key was used with another body, or
   *   the first request with it is still running.
   */
  async claim(apiKeyId: number, key: string, requestHash: string): Promise<IdempotencyClaim> {
    const claimed: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_key (api_key_id, key, request_hash, status, locked_until, expires_at)
       VALUES ($1, $2, $3, 'in_progress', now() + interval '${CLAIM_LEASE}', now() + interval '${RETENTION}')
       ON CONFLICT (api_key_id, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, status = 'in_progress', response_status = NULL,
              response_body = NULL, created_at = now(), locked_until = EXCLUDED.locked_until,
              expires_at = EXCLUDED.expires_at
        WHERE idempotency_key.expires_at < now()
           OR (idempotency_key.status = 'in_progress' AND idempotency_key.locked_until < now()
               AND idempotency_key.request_hash = EXCLUDED.request_hash)
       RETURNING 1`,
      [apiKeyId, key, requestHash],
    );
    if (claimed.length > 0) return { kind: 'claimed' };

    const [existing]: Array<{
      request_hash: string;
      status: string;
      response_status: number | null;
      response_body: string | null;
    }> = await this.dataSource.query(
      `SELECT request_hash, status, response_status, response_body FROM idempotency_key WHERE api_key_id = $1 AND key = $2`,
      [apiKeyId, key],
    );
    if (!existing) return this.claim(apiKeyId, key, requestHash); // released in between: try again
    if (existing.request_hash !== requestHash) {
      throw new ApiError(
        409,
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request body',
      );
    }
    if (existing.status !== 'completed' || existing.response_body === null) {
      throw new ApiError(
        409,
        'idempotency_conflict',
        'A request with this Idempotency-Key is still being processed; retry shortly',
      );
    }
    return {
      kind: 'replay',
      status: existing.response_status ?? 202,
      body: existing.response_body,
    };
  }

  /** Stores the response of a claimed key, in the caller's transaction. */
  async complete(
    manager: EntityManager,
    apiKeyId: number,
    key: string,
    status: number,
    body: unknown,
  ): Promise<void> {
    await manager.query(
      `UPDATE idempotency_key SET status = 'completed', response_status = $3, response_body = $4
        WHERE api_key_id = $1 AND key = $2`,
      [apiKeyId, key, status, JSON.stringify(body)],
    );
  }

  /** Frees a claim whose request failed, so a retry can run. */
  async release(apiKeyId: number, key: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_key WHERE api_key_id = $1 AND key = $2 AND status = 'in_progress'`,
      [apiKeyId, key],
    );
  }
}
