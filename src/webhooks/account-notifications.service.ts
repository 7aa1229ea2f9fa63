import { Injectable } from '@nestjs/common';
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
  ) {}

  /** The account's URL, null when none is set. */
  async setting(accountId: number): Promise<NotificationSetting> {
    return { url: await this.rows.urlOf(accountId) };
  }

  /**
   * Sets (`url`) or removes (null) the account's notification URL. A new URL gets a new
   * signing secret, returned this once; the same URL again keeps its secret (none returned).
   * @returns the setting, with `secret` when a new one was made.
   * @throws InvalidInputError (field `url`) for a URL an endpoint could not have.
   */
  async set(
    accountId: number,
    url: string | null,
  ): Promise<NotificationSetting & { secret?: string }> {
    if (url === null) {
      await this.rows.delete(accountId);
      return { url: null };
    }
    const normalised = validateUrl(url);
    const current = await this.rows.find(accountId);
    if (current?.url === normalised) return { url: normalised };
    const secret = generateSigningSecret();
    await this.rows.upsert({
      accountId,
      url: normalised,
      secretEncrypted: this.secretBox.encrypt(secret),
      updatedAt: new Date(),
    });
    return { url: normalised, secret };
  }

  /** Where and with which secret to send the account's messages; null when it has no URL. */
  async target(accountId: number): Promise<{ url: string; secret: string } | null> {
    const row = await this.rows.find(accountId);
    return row ? { url: row.url, secret: this.secretBox.decrypt(row.secretEncrypted) } : null;
  }
}
