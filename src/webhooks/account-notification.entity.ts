import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import type { Account } from '../campaigns';
import { MAX_URL_LENGTH } from './endpoint-limits.constants';

/**
 * Where an account gets the service's operational messages about its endpoints
 * (docs/webhooks.md#operational-messages): one URL per account, and the signing secret its
 * messages are signed with (stored encrypted, like an endpoint's).
 */
@Entity({ name: 'account_notification' })
export class AccountNotification {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId!: number;

  @OneToOne('Account', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_account_notification_account' })
  account?: Account;

  @Column({ type: 'varchar', length: MAX_URL_LENGTH })
  url!: string;

  /** `v1:<iv>:<tag>:<ciphertext>` of the `whsec_…` secret. */
  @Column({ name: 'secret_encrypted', type: 'text' })
  secretEncrypted!: string;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
