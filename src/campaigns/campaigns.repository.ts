import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository, type EntityManager } from 'typeorm';
import { Account } from './account.entity';
import { Campaign } from './campaign.entity';

/** What authorisation and upload need to know about a campaign (read through {@link CampaignsRepository}). */
export interface CampaignScopeRow {
  id: number;
  accountId: number;
  defaultRegion: string;
}

/**
 * Every query on `account` and `campaign` (docs/architecture.md#modules-and-tables). Ids are
 * assumed to fit PostgreSQL's integer: callers filter larger ones first.
 */
@Injectable()
export class CampaignsRepository {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    @InjectRepository(Campaign) private readonly campaigns: Repository<Campaign>,
  ) {}

  /**
   * Inserts an account, in the caller's transaction when `manager` is given.
   * @returns it with its id and creation time.
   */
  insertAccount(name: string, manager?: EntityManager): Promise<Account> {
    const accounts = manager?.getRepository(Account) ?? this.accounts;
    return accounts.save(accounts.create({ name }));
  }

  /** Whether account `id` exists. */
  accountExists(id: number): Promise<boolean> {
    return this.accounts.existsBy({ id });
  }

  /** The portal origins of account `id`, or null when it does not exist. */
  async portalOrigins(id: number): Promise<string[] | null> {
    const account = await this.accounts.findOne({ where: { id }, select: { portalOrigins: true } });
    return account ? account.portalOrigins : null;
  }

  /**
   * Replaces the portal origins of account `id`, in the caller's transaction.
   * @returns the origins it had, or null when it does not exist.
   */
  async replacePortalOrigins(
    id: number,
    origins: readonly string[],
    manager: EntityManager,
  ): Promise<string[] | null> {
    const rows: Array<{ portal_origins: string[] }> = await manager.query(
      `SELECT portal_origins FROM account WHERE id = $1 FOR UPDATE`,
      [id],
    );
    if (rows.length === 0) return null;
    await manager.query(`UPDATE account SET portal_origins = $2 WHERE id = $1`, [id, origins]);
    return rows[0].portal_origins;
  }

  /** Every account, oldest first. */
  listAccounts(): Promise<Account[]> {
    return this.accounts.find({ order: { id: 'ASC' } });
  }

  /**
   * Inserts a campaign, in the caller's transaction when `manager` is given.
   * @throws the driver's foreign-key violation (23503) when the account does not exist.
   */
  insertCampaign(
    fields: Pick<Campaign, 'accountId' | 'name' | 'defaultRegion'>,
    manager?: EntityManager,
  ): Promise<Campaign> {
    const campaigns = manager?.getRepository(Campaign) ?? this.campaigns;
    return campaigns.save(campaigns.create(fields));
  }

  /** The campaigns of `accountId`, oldest first. */
  listCampaigns(accountId: number): Promise<Campaign[]> {
    return this.campaigns.find({ where: { accountId }, order: { id: 'ASC' } });
  }

  /** How many of `campaignIds` are campaigns of `accountId`. */
  countOfAccount(accountId: number, campaignIds: number[]): Promise<number> {
    return this.campaigns.count({ where: { accountId, id: In(campaignIds) } });
  }

  /** Campaign `id`, or null when it does not exist. */
  findCampaign(id: number): Promise<Campaign | null> {
    return this.campaigns.findOneBy({ id });
  }

  /** Whether campaign `id` exists. */
  campaignExists(id: number): Promise<boolean> {
    return this.campaigns.existsBy({ id });
  }

  /** The account of campaign `campaignId`, or null when it does not exist. */
  async findAccountId(campaignId: number): Promise<number | null> {
    const campaign = await this.campaigns.findOne({
      where: { id: campaignId },
      select: { id: true, accountId: true },
    });
    return campaign?.accountId ?? null;
  }

  /** Campaign `campaignId`'s account and region, or null when it does not exist. */
  async findScopeById(campaignId: number): Promise<CampaignScopeRow | null> {
    return this.campaigns.findOne({
      where: { id: campaignId },
      select: { id: true, accountId: true, defaultRegion: true },
    });
  }

  /** Campaign `campaignId` if it is one of `accountId`'s, else null. */
  async findScope(accountId: number, campaignId: number): Promise<CampaignScopeRow | null> {
    return this.campaigns.findOne({
      where: { id: campaignId, accountId },
      select: { id: true, accountId: true, defaultRegion: true },
    });
  }
}
