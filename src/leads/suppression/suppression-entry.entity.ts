import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { Account } from '../../campaigns';

/** The kinds of identifier an account's suppression list holds (docs/privacy.md#suppression-list). */
export const SUPPRESSION_KINDS = ['phone', 'email'] as const;

/** `phone` (E.164) or `email` (trimmed, lower-cased), the identifier a hash was made from. */
export type SuppressionKind = (typeof SUPPRESSION_KINDS)[number];

/**
 * One phone or email an account must not store again (docs/privacy.md#suppression-list), kept
 * only as a keyed hash: HMAC-SHA-256 (32 bytes) of the normalised identifier under the key
 * `key_id` names (docs/privacy.md#keyed-hashes). The primary key (`account_id`, `hash`) is the
 * index an upload's check reads.
 */
@Entity({ name: 'suppression_entry' })
@Check('chk_suppression_entry_kind', `"kind" IN ('phone', 'email')`)
export class SuppressionEntry {
  @PrimaryColumn({
    name: 'account_id',
    type: 'integer',
    primaryKeyConstraintName: 'pk_suppression_entry',
  })
  accountId!: number;

  @ManyToOne('Account', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_suppression_entry_account' })
  account?: Account;

  @PrimaryColumn({ type: 'bytea', primaryKeyConstraintName: 'pk_suppression_entry' })
  hash!: Buffer;

  @Column({ type: 'varchar', length: 8 })
  kind!: SuppressionKind;

  /** The hash key's id (docs/privacy.md#keyed-hashes). */
  @Column({ name: 'key_id', type: 'smallint' })
  keyId!: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
