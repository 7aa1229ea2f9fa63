import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLog, type AuditActor } from '../audit';
import { AccountNotificationsRepository } from './account-notifications.repository';
import { validateUrl } from './endpoint-input';
import { generateSigningSecret, SigningSecretBox } from './signing-secrets.service';

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
    private readonly rows: AccountNotificationsRepository,
    private readonly secretBox: SigningSecretBox,
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
  ) {}

  /** The account's URL, null when none is set. */
  async setting(accountId: number): Promise<NotificationSetting> {
    return { url: await this.rows.urlOf(accountId) };
  }

  /**
   * Sets (`url`) or removes (null) the account's notification URL. A new URL gets a new
   * signing secret, returned this once; the same URL again keeps its secret (none returned).
   * Every call with an `actor` is recorded as `account.notifications_update` (`{url,
   * new_secret}`: whether a secret was made, never the secret) in the same transaction
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
      const result = await this.write(manager, accountId, normalised);
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

  /** {@link set}'s change, in `manager`'s transaction. */
  private async write(
    manager: EntityManager,
    accountId: number,
    url: string | null,
  ): Promise<NotificationSetting & { secret?: string }> {
    if (url === null) {
      await this.rows.delete(accountId, manager);
      return { url: null };
    }
    const current = await this.rows.find(accountId, manager);
    if (current?.url === url) return { url };
    const secret = generateSigningSecret();
    await this.rows.upsert(
      {
        accountId,
        url,
        secretEncrypted: this.secretBox.encrypt(secret),
        updatedAt: new Date(),
      },
      manager,
    );
    return { url, secret };
  }

  async target(accountId: number): Promise<{ url: string; secret: string } | null> {
    const row = await this.rows.find(accountId);
    return row ? { url: row.url, secret: this.secretBox.decrypt(row.secretEncrypted) } : null;
  }
}
