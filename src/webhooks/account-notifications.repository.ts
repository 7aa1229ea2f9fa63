import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type EntityManager } from 'typeorm';
import { AccountNotification } from './account-notification.entity';

/**
 * Every query on `account_notification` (docs/webhooks.md#operational-messages): one row per
 * account. Methods taking an `EntityManager` run in the caller's transaction.
 */
@Injectable()
export class AccountNotificationsRepository {
  constructor(
    @InjectRepository(AccountNotification)
    private readonly rows: Repository<AccountNotification>,
  ) {}

  /** The account's notification URL alone (no secret read), null when it has none. */
  async urlOf(accountId: number): Promise<string | null> {
    const row = await this.rows.findOne({ where: { accountId }, select: { url: true } });
    return row?.url ?? null;
  }

  /** The account's row with its encrypted secret, null when it has none. */
  async find(accountId: number, manager?: EntityManager): Promise<AccountNotification | null> {
    return this.rowsOf(manager).findOne({ where: { accountId } });
  }

  /** Removes the account's row, if any. */
  async delete(accountId: number, manager?: EntityManager): Promise<void> {
    await this.rowsOf(manager).delete({ accountId });
  }

  /** Inserts the account's row, or replaces its URL, secret and time (one upsert on `account_id`). */
  async upsert(
    row: Pick<AccountNotification, 'accountId' | 'url' | 'secretEncrypted' | 'updatedAt'>,
    manager?: EntityManager,
  ): Promise<void> {
    await this.rowsOf(manager).upsert(row, ['accountId']);
  }

  private rowsOf(manager?: EntityManager): Repository<AccountNotification> {
    return manager ? manager.getRepository(AccountNotification) : this.rows;
  }
}
