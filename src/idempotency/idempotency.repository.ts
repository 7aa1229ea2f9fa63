import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { IdempotencyStatus } from './idempotency-key.entity';

/** How long a response is replayed (docs/api.md#idempotent-retries), as a PostgreSQL interval. */
export const IDEMPOTENCY_RETENTION = '24 hours';
/**
 * How long a first request may run before its claim counts as abandoned (a crashed process),
 * as a PostgreSQL interval (docs/api.md#idempotent-retries).
 */
export const IDEMPOTENCY_CLAIM_LEASE = '5 minutes';

/** An `idempotency_key` row as {@link IdempotencyRepository.find} reads it. */
export interface StoredIdempotencyKey {
  /** Hex SHA-256 of the first request's body. */
  requestHash: string;
  status: IdempotencyStatus;
  /** The stored HTTP status; null until the key is `completed`. */
  responseStatus: number | null;
  /** The stored response body as JSON text; null until the key is `completed`. */
  responseBody: string | null;
}

/**
 * The SQL of the `idempotency_key` table (docs/api.md#idempotent-retries), one statement per
 * method. The unique (api_key_id, key) row decides between simultaneous requests; what to
 * make of a row is {@link IdempotencyService}'s business.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Claims (`in_progress`) the key for a request with body hash `requestHash`: inserts the row,
   * or takes over an existing one that has expired ({@link IDEMPOTENCY_RETENTION}) or is an
   * abandoned claim (lease {@link IDEMPOTENCY_CLAIM_LEASE} over) of the same body. The claim
   * is held for {@link IDEMPOTENCY_CLAIM_LEASE}.
   *
   * @returns true when this request now holds the key; false when another row stands.
   */
  async tryClaim(apiKeyId: number, key: string, requestHash: string): Promise<boolean> {
    const claimed: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_key (api_key_id, key, request_hash, status, locked_until, expires_at)
       VALUES ($1, $2, $3, 'in_progress', now() + interval '${IDEMPOTENCY_CLAIM_LEASE}', now() + interval '${IDEMPOTENCY_RETENTION}')
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
    return claimed.length > 0;
  }

  /** The key's row, or null when there is none (never claimed, or released since). */
  async find(apiKeyId: number, key: string): Promise<StoredIdempotencyKey | null> {
    const [row]: Array<{
      request_hash: string;
      status: IdempotencyStatus;
      response_status: number | null;
      response_body: string | null;
    }> = await this.dataSource.query(
      `SELECT request_hash, status, response_status, response_body FROM idempotency_key WHERE api_key_id = $1 AND key = $2`,
      [apiKeyId, key],
    );
    if (!row) return null;
    return {
      requestHash: row.request_hash,
      status: row.status,
      responseStatus: row.response_status,
      responseBody: row.response_body,
    };
  }

  /**
   * Marks a claimed key `completed` with its response, in the caller's transaction.
   *
   * @param manager the transaction to write in (the upload's own, so both commit together).
   * @param status the HTTP status to replay.
   * @param responseBody the response body as JSON text, replayed as it is.
   */
  async complete(
    manager: EntityManager,
    apiKeyId: number,
    key: string,
    status: number,
    responseBody: string,
  ): Promise<void> {
    await manager.query(
      `UPDATE idempotency_key SET status = 'completed', response_status = $3, response_body = $4
        WHERE api_key_id = $1 AND key = $2`,
      [apiKeyId, key, status, responseBody],
    );
  }

  /** Deletes the key's row if it is still `in_progress` (a completed key is kept). */
  async release(apiKeyId: number, key: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_key WHERE api_key_id = $1 AND key = $2 AND status = 'in_progress'`,
      [apiKeyId, key],
    );
  }

  /**
   * Deletes the stored uploads of `apiKeyIds` whose response names one of `importIds`, in the
   * caller's transaction (an erasure, docs/privacy.md#erasure): the record of a request that
   * carried the person (its body's hash) goes with it. Read by primary key prefix.
   * @returns how many records.
   */
  async deleteNamingImports(
    manager: EntityManager,
    apiKeyIds: number[],
    importIds: string[],
  ): Promise<number> {
    const [, count]: [unknown, number] = await manager.query(
      `DELETE FROM idempotency_key
        WHERE api_key_id = ANY($1::int[])
          AND response_body LIKE ANY($2::text[])`,
      [apiKeyIds, importIds.map((id) => `%"import_id":"${id}"%`)],
    );
    return count;
  }
}
