import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { Account } from '../campaigns';

/**
 * A long-lived API key (docs/api.md#authentication). Only the SHA-256 hash of the key is stored; `keyPrefix`
 * is the first characters, shown so operators can tell keys apart. `campaignIds` null means
 * "every campaign of the account".
 */
@Entity({ name: 'api_key' })
export class ApiKey {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Index('idx_api_key_account_id')
  @Column({ name: 'account_id', type: 'integer' })
  accountId!: number;

  @ManyToOne('Account', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_api_key_account' })
  account?: Account;

  @Column({ type: 'varchar', length: 200, nullable: true })
  name!: string | null;

  /** Lower-case hex SHA-256 of the whole key. */
  @Index('uq_api_key_key_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash!: string;

  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix!: string;

  @Column({ name: 'campaign_ids', type: 'integer', array: true, nullable: true })
  campaignIds!: number[] | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
