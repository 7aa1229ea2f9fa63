import {
  Check,
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToOne,
  PrimaryColumn,
} from 'typeorm';
import type { Account } from '../../campaigns';

/** The kinds of identifier an account's suppression list holds (docs/privacy.md#suppression-list). */
export const SUPPRESSION_KINDS = ['phone', 'email'] as const;

/** `phone` (E.164) or `email` (trimmed, lower-cased), the identifier a hash was made from. */
export type SuppressionKind = (typeof SUPPRESSION_KINDS)[number];

/**
 * One phone or email an account must not store again (docs/privacy.md#suppression-list), kept
 * only as a keyed hash: HMAC-SHA-256 (32 bytes) of the normalised identifier under the key
 * `key_id` names (docs/privacy.md#keyed-hashes), with its 32-bit fingerprint
 * (docs/privacy.md#fingerprints; null on entries added before fingerprints were kept) and the
 * list version that added it. The primary key (`account_id`, `hash`) is the index an upload's
 * lookup reads; (`account_id`, `list_version`) finds the entries added since a version.
 */
@Entity({ name: 'suppression_entry' })
@Index('idx_suppression_entry_account_version', ['accountId', 'listVersion'])
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

  /** xxHash32 of the identifier under a secret seed, as a signed 32-bit integer. */
  @Column({ type: 'integer', nullable: true })
  fingerprint!: number | null;

  /** The list version that added (or fingerprinted) the entry; `0` before versions were kept. */
  @Column({ name: 'list_version', type: 'bigint', default: 0 })
  listVersion!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}

/**
 * An account's suppression list version (docs/privacy.md#fingerprints): moved on by every
 * addition and removal in its transaction, whose row lock makes one account's changes commit
 * one after another. What the upload's check compares its cached filter with.
 */
@Entity({ name: 'suppression_list' })
export class SuppressionListVersion {
  @PrimaryColumn({
    name: 'account_id',
    type: 'integer',
    primaryKeyConstraintName: 'pk_suppression_list',
  })
  accountId!: number;

  @OneToOne('Account', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_suppression_list_account' })
  account?: Account;

  @Column({ type: 'bigint' })
  version!: string;
}
