import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { Account } from '../campaigns';

/**
 * What one erasure removed, per kind of record (docs/privacy.md#erasure): every count the
 * receipt gives, in the order the erasure takes them.
 */
export interface ErasureCounts {
  leads: number;
  import_rejections: number;
  spreadsheet_imports: number;
  events: number;
  deliveries_cancelled: number;
  attempts: number;
  idempotency_records: number;
  suppression_entries: number;
}

/**
 * The receipt of one erasure (docs/privacy.md#erasure-receipts): when, by whom, in which scope
 * and what it removed; the person is named only by the keyed hashes of their phone and email
 * (docs/privacy.md#keyed-hashes).
 */
@Entity({ name: 'erasure_receipt' })
@Index('idx_erasure_receipt_account_created', ['accountId', 'createdAt', 'id'])
export class ErasureReceipt {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_erasure_receipt' })
  id!: string;

  @Column({ name: 'account_id', type: 'integer' })
  accountId!: number;

  @ManyToOne('Account', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_erasure_receipt_account' })
  account?: Account;

  /** The campaign erased in, or null for the whole account. */
  @Column({ name: 'campaign_id', type: 'integer', nullable: true })
  campaignId!: number | null;

  @Column({ name: 'phone_hash', type: 'bytea', nullable: true })
  phoneHash!: Buffer | null;

  @Column({ name: 'email_hash', type: 'bytea', nullable: true })
  emailHash!: Buffer | null;

  @Column({ name: 'key_id', type: 'smallint' })
  keyId!: number;

  @Column({ type: 'jsonb' })
  counts!: ErasureCounts;

  /** Whether the erasure added the person to the suppression list. */
  @Column({ type: 'boolean' })
  suppressed!: boolean;

  /** Who asked: `cli`, `api_key:<id>` or `user:<id>`. */
  @Column({ name: 'requested_by', type: 'varchar', length: 64 })
  requestedBy!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
