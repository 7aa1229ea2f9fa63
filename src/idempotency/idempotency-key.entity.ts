import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { ApiKey } from '../auth';

/** `in_progress` while the first request runs; `completed` once its response is stored. */
export type IdempotencyStatus = 'in_progress' | 'completed';

/**
 * An `Idempotency-Key` of an API key (docs/api.md#idempotent-retries): the first request's body hash and, once
 * it is accepted, its response, replayed for 24 hours to retries with the same body.
 */
@Entity({ name: 'idempotency_key' })
@Index('idx_idempotency_key_expires_at', ['expiresAt'])
export class IdempotencyKey {
  @PrimaryColumn({ name: 'api_key_id', type: 'integer' })
  apiKeyId!: number;

  @ManyToOne('ApiKey', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'api_key_id', foreignKeyConstraintName: 'fk_idempotency_key_api_key' })
  apiKey?: ApiKey;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  /** Hex SHA-256 of the request body as parsed JSON. */
  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: IdempotencyStatus;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  /** The response body exactly as first sent (text, so key order survives). */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  /** Until when an `in_progress` claim is held; a claim of a crashed process frees after it. */
  @Column({ name: 'locked_until', type: 'timestamptz' })
  lockedUntil!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
