import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  Column,
  DataSource,
  Entity,
  JoinColumn,
  OneToOne,
  PrimaryColumn,
  Repository,
} from 'typeorm';
import { AuditLog, type AuditActor } from '../audit/audit-log.service';
import { Account } from '../campaigns/account.entity';
import { MAX_URL_LENGTH, validateUrl } from './endpoint-input';
import { generateSigningSecret, SigningSecretBox } from './signing-secrets';

/**
 * Where an account gets the service's operational messages about its endpoints
 * (docs/webhooks.md#operational-messages): one URL per account, and the signing secret its
 * messages are signed with (stored encrypted, like an endpoint's).
 */
@Entity({ name: 'account_notification' })
export class AccountNotification {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId!: number;

  @OneToOne(() => Account, { onDelete: 'CASCADE' })
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

/** An account's notification URL as the dashboard shows it (never the secret). */
export interface NotificationSetting {
  url: string | null;
}

/**
 * An account's notification URL (docs/webhooks.md#operational-messages): read and changed by
 * the dashboard, read with its secret by the delivery worker to send an operational message.
 */
@Injectable()
export class AccountNotifications {
  constructor(
    @InjectRepository(AccountNotification)
    private readonly rows: Repository<AccountNotification>,
    private readonly secretBox: SigningSecretBox,
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
  ) {}

  /** The account's URL, null when none is set. */
  async setting(accountId: number): Promise<NotificationSetting> {
    const row = await this.rows.findOne({ where: { accountId }, select: { url: true } });
    return { url: row?.url ?? null };
  }

  /**
   * Sets (`url`) or removes (null) the account's notification URL. A new URL gets a new
   * signing secret, returned this once; the same URL again keeps its secret (none returned).
   * Every call with an `actor` is recorded as `account.notifications_update`
   * (`{url, new_secret}`: whether a secret was made, never the secret) in the same transaction
   * (docs/architecture.md#who-writes-the-audit-log).
   * @returns the setting, with `secret` when a new one was made.
   * @throws InvalidInputError (field `url`) for a URL an endpoint could not have.
   */
  async set(
    accountId: number,
    url: string | null,
    actor?: AuditActor,
  ): Promise<NotificationSetting & { secret?: string }> {
    const normalised = url === null ? null : validateUrl(url);
    return this.dataSource.transaction(async (manager) => {
      const result = await this.write(
        manager.getRepository(AccountNotification),
        accountId,
        normalised,
      );
      await this.audit.recordChange(
        actor,
        {
          accountId,
          action: 'account.notifications_update',
          objectType: 'account',
          objectId: accountId,
          details: { url: result.url, new_secret: result.secret !== undefined },
        },
        manager,
      );
      return result;
    });
  }

  /** {@link set}'s change, through `rows` (the transaction's). */
  private async write(
    rows: Repository<AccountNotification>,
    accountId: number,
    url: string | null,
  ): Promise<NotificationSetting & { secret?: string }> {
    if (url === null) {
      await rows.delete({ accountId });
      return { url: null };
    }
    const current = await rows.findOne({ where: { accountId } });
    if (current?.url === url) return { url };
    const secret = generateSigningSecret();
    await rows.upsert(
      {
        accountId,
        url,
        secretEncrypted: this.secretBox.encrypt(secret),
        updatedAt: new Date(),
      },
      ['accountId'],
    );
    return { url, secret };
  }

  /** Where and with which secret to send the account's messages; null when it has no URL. */
  async target(accountId: number): Promise<{ url: string; secret: string } | null> {
    const row = await this.rows.findOne({ where: { accountId } });
    return row ? { url: row.url, secret: this.secretBox.decrypt(row.secretEncrypted) } : null;
  }
}
