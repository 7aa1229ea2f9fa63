import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { AuditLog, type AuditActor } from '../audit';
import { getCountries, type CountryCode } from 'libphonenumber-js/max';
import type { Account } from './account.entity';
import type { Campaign } from './campaign.entity';
import { MAX_INT4 } from '../common/ids';
import type { Owned } from '../common/owned-id';
import { InvalidInputError, NotFoundError } from '../common/domain-error';
import { CampaignNotFoundError } from './campaign-errors';
import { CampaignsRepository, type CampaignScopeRow } from './campaigns.repository';
import { checkedPortalOrigins } from './portal-origins';

/** What authorisation and upload need to know about a campaign; it never changes after creation. */
export interface CampaignScope {
  id: number;
  accountId: number;
  /** ISO 3166-1 alpha-2 region for phones written without `+`. */
  defaultRegion: CountryCode;
}

const SUPPORTED_REGIONS = new Set<string>(getCountries());

/** How long the campaign guard's answer for one (account, campaign) pair is reused, in ms. */
export const CAMPAIGN_SCOPE_TTL_MS = 10_000;

/**
 * Accounts and campaigns: creation and listing for the operator CLI (docs/cli.md) and the campaign guard's
 * look-up. The guard asks "is campaign C one of account A's?", and the answer is cached per
 * (A, C) for {@link CAMPAIGN_SCOPE_TTL_MS}, a "no" as much as a "yes": a campaign of another
 * account and one that does not exist cost the same work and time, so timing cannot tell them
 * apart, and a deleted campaign stops serving within seconds (docs/security.md).
 */
@Injectable()
export class CampaignsService {
  private readonly scopes = new LRUCache<string, { scope: CampaignScope | null }>({
    max: 10_000,
    ttl: CAMPAIGN_SCOPE_TTL_MS,
  });

  constructor(
    private readonly repository: CampaignsRepository,
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Creates an account, recorded as `account.create` (`{name}`) in the same transaction
   * (docs/architecture.md#who-writes-the-audit-log); nothing is recorded without an `actor`.
   * @throws InvalidInputError (field `name`) for a blank or over-long name.
   */
  async createAccount(name: string, actor?: AuditActor): Promise<Account> {
    const checked = requireName(name);
    return this.dataSource.transaction(async (manager) => {
      const account = await this.repository.insertAccount(checked, manager);
      await this.audit.recordChange(
        actor,
        {
          accountId: account.id,
          action: 'account.create',
          objectType: 'account',
          objectId: account.id,
          details: { name: account.name },
        },
        manager,
      );
      return account;
    });
  }

  /**
   * The origins allowed to frame account `accountId`'s portal (read now, not cached: a change
   * applies to the next portal page served), docs/dashboard.md#embedding-the-portal.
   * @throws NotFoundError when the account does not exist.
   */
  async portalOrigins(accountId: number): Promise<string[]> {
    const origins = accountId > MAX_INT4 ? null : await this.repository.portalOrigins(accountId);
    if (origins === null) throw new NotFoundError(`account ${accountId} does not exist`);
    return origins;
  }

  /**
   * Replaces the origins allowed to frame account `accountId`'s portal, recorded as
   * `account.portal_origins_update` (`{origins, previous}`) in the same transaction
   * (docs/dashboard.md#embedding-the-portal). Links already minted keep the parent origin they
   * were minted for, but the portal page's `frame-ancestors` follows this list at once.
   * @param origins each checked by {@link checkedPortalOrigins}.
   * @returns the origins as stored (normalised, without duplicates).
   * @throws InvalidInputError (field `origins`); NotFoundError when the account does not exist.
   */
  async setPortalOrigins(
    accountId: number,
    origins: unknown,
    actor?: AuditActor,
  ): Promise<string[]> {
    const checked = checkedPortalOrigins(origins);
    if (accountId > MAX_INT4) throw new NotFoundError(`account ${accountId} does not exist`);
    return this.dataSource.transaction(async (manager) => {
      const previous = await this.repository.replacePortalOrigins(accountId, checked, manager);
      if (previous === null) throw new NotFoundError(`account ${accountId} does not exist`);
      await this.audit.recordChange(
        actor,
        {
          accountId,
          action: 'account.portal_origins_update',
          objectType: 'account',
          objectId: accountId,
          details: { origins: checked, previous },
        },
        manager,
      );
      return checked;
    });
  }

  /** Every account, oldest first. */
  listAccounts(): Promise<Account[]> {
    return this.repository.listAccounts();
  }

  /**
   * The campaigns of account `accountId`, oldest first.
   * @throws NotFoundError when the account does not exist.
   */
  async listCampaigns(accountId: number): Promise<Campaign[]> {
    await this.requireAccount(accountId);
    return this.repository.listCampaigns(accountId);
  }

  /** @throws NotFoundError when account `accountId` does not exist. */
  async requireAccount(accountId: number): Promise<void> {
    if (accountId > MAX_INT4 || !(await this.repository.accountExists(accountId))) {
      throw new NotFoundError(`account ${accountId} does not exist`);
    }
  }

  /**
   * Creates a campaign of `accountId`, recorded as `campaign.create`
   * (`{name, default_region}`) in the same transaction; nothing without an `actor`.
   * @param region ISO 3166-1 alpha-2 code, upper or lower case (default `US`).
   * @throws InvalidInputError (field `region` or `name`) for a bad region or name;
   *   NotFoundError when the account does not exist.
   */
  async createCampaign(
    accountId: number,
    name: string,
    region = 'US',
    actor?: AuditActor,
  ): Promise<Campaign> {
    const defaultRegion = region.trim().toUpperCase();
    if (!SUPPORTED_REGIONS.has(defaultRegion)) {
      throw InvalidInputError.field(
        'region',
        `must be an ISO 3166-1 alpha-2 code such as US or GB, got "${region}"`,
      );
    }
    await this.requireAccount(accountId);
    const checked = requireName(name);
    return this.dataSource.transaction(async (manager) => {
      const campaign = await this.repository.insertCampaign(
        { accountId, name: checked, defaultRegion },
        manager,
      );
      await this.audit.recordChange(
        actor,
        {
          accountId: campaign.accountId,
          action: 'campaign.create',
          objectType: 'campaign',
          objectId: campaign.id,
          details: { name: campaign.name, default_region: campaign.defaultRegion },
        },
        manager,
      );
      return campaign;
    });
  }

  /** Whether every id in `campaignIds` is a campaign of `accountId` (read now, not cached). */
  async allBelongTo(accountId: number, campaignIds: number[]): Promise<boolean> {
    if (campaignIds.some((id) => id > MAX_INT4)) return false;
    const found = await this.repository.countOfAccount(accountId, campaignIds);
    return found === new Set(campaignIds).size;
  }

  /**
   * Campaign `campaignId` with its account and region (read now, not cached): for the
   * dashboard's reads that need the region (the lead search's phones, a spreadsheet import's
   * preview) and for the spreadsheet import runner. The id is owned: the dashboard's resource
   * guard checked its account (docs/architecture.md#account-access), or the caller is the
   * service's own job.
   * @throws CampaignNotFoundError when it no longer exists.
   */
  async scopeOf(campaignId: Owned<'campaign'>): Promise<CampaignScope> {
    const campaign = campaignId > MAX_INT4 ? null : await this.repository.findScopeById(campaignId);
    if (!campaign) throw new CampaignNotFoundError(campaignId);
    return toScope(campaign);
  }

  /**
   * Campaign `campaignId` (read now, not cached), or null when it no longer exists. The id is
   * owned (docs/architecture.md#account-access): no account is checked here.
   */
  async findCampaign(campaignId: Owned<'campaign'>): Promise<Campaign | null> {
    return campaignId > MAX_INT4 ? null : this.repository.findCampaign(campaignId);
  }

  /** Whether campaign `campaignId` exists (read now, not cached). */
  async exists(campaignId: number): Promise<boolean> {
    return campaignId <= MAX_INT4 && this.repository.campaignExists(campaignId);
  }

  /** The account of campaign `campaignId` (read now, not cached), or null when it does not exist. */
  async accountOf(campaignId: number): Promise<number | null> {
    return campaignId > MAX_INT4 ? null : this.repository.findAccountId(campaignId);
  }

  /**
   * The campaign `campaignId` if it is one of `accountId`'s, from a short-lived bounded cache
   * of recent answers (found or not).
   * @returns null when the campaign does not exist or belongs to another account (one answer).
   */
  async findScopeOf(accountId: number, campaignId: number): Promise<CampaignScope | null> {
    if (campaignId > MAX_INT4) return null;
    const key = `${accountId}:${campaignId}`;
    const cached = this.scopes.get(key);
    if (cached) return cached.scope;
    const campaign = await this.repository.findScope(accountId, campaignId);
    const scope = campaign && toScope(campaign);
    this.scopes.set(key, { scope });
    return scope;
  }
}

function toScope(campaign: CampaignScopeRow): CampaignScope {
  return {
    id: campaign.id,
    accountId: campaign.accountId,
    defaultRegion: campaign.defaultRegion as CountryCode,
  };
}

function requireName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) {
    throw InvalidInputError.field('name', 'must be 1 to 200 characters');
  }
  return trimmed;
}
