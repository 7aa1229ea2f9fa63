import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { Repository } from 'typeorm';
import { getCountries, type CountryCode } from 'libphonenumber-js/max';
import { Account } from './account.entity';
import { Campaign } from './campaign.entity';
import { MAX_INT4 } from '../common/ids';
import { InvalidInputError } from '../common/invalid-input.error';

/** What authorisation and upload need to know about a campaign; it never changes after creation. */
export interface CampaignScope {
  id: number;
  accountId: number;
  /** ISO 3166-1 alpha-2 region for phones written without `+`. */
  defaultRegion: CountryCode;
}

const SUPPORTED_REGIONS = new Set<string>(getCountries());

/**
 * Accounts and campaigns: creation for the operator CLI (CONTRACT 7) and a cached lookup of a
 * campaign's owner and region for the campaign guard. A campaign's owner and region never
 * change, so caching them for minutes is safe; the cache is bounded.
 */
@Injectable()
export class CampaignsService {
  private readonly scopes = new LRUCache<number, CampaignScope>({ max: 10_000, ttl: 5 * 60_000 });

  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    @InjectRepository(Campaign) private readonly campaigns: Repository<Campaign>,
  ) {}

  /** Creates an account. @throws InvalidInputError for a blank or over-long name. */
  async createAccount(name: string): Promise<Account> {
    return this.accounts.save(this.accounts.create({ name: requireName(name) }));
  }

  /**
   * Creates a campaign of `accountId`.
   * @param region ISO 3166-1 alpha-2 code, upper or lower case (default `US`).
   * @throws InvalidInputError when the account does not exist or the name or region is bad.
   */
  async createCampaign(accountId: number, name: string, region = 'US'): Promise<Campaign> {
    const defaultRegion = region.trim().toUpperCase();
    if (!SUPPORTED_REGIONS.has(defaultRegion)) {
      throw new InvalidInputError(
        `--region must be an ISO 3166-1 alpha-2 code such as US or GB, got "${region}"`,
      );
    }
    if (!(await this.accounts.existsBy({ id: accountId }))) {
      throw new InvalidInputError(`account ${accountId} does not exist`);
    }
    return this.campaigns.save(
      this.campaigns.create({ accountId, name: requireName(name), defaultRegion }),
    );
  }

  /** Whether every id in `campaignIds` is a campaign of `accountId`. */
  async allBelongTo(accountId: number, campaignIds: number[]): Promise<boolean> {
    const scopes = await Promise.all(campaignIds.map((id) => this.findScope(id)));
    return scopes.every((scope) => scope?.accountId === accountId);
  }

  /**
   * Looks up a campaign's owner and region, from a bounded in-process cache when possible.
   * @returns null when the campaign does not exist.
   */
  async findScope(campaignId: number): Promise<CampaignScope | null> {
    if (campaignId > MAX_INT4) return null;
    const cached = this.scopes.get(campaignId);
    if (cached) return cached;
    const campaign = await this.campaigns.findOne({
      where: { id: campaignId },
      select: { id: true, accountId: true, defaultRegion: true },
    });
    if (!campaign) return null;
    const scope: CampaignScope = {
      id: campaign.id,
      accountId: campaign.accountId,
      defaultRegion: campaign.defaultRegion as CountryCode,
    };
    this.scopes.set(campaignId, scope);
    return scope;
  }
}

function requireName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) {
    throw new InvalidInputError('--name must be 1 to 200 characters');
  }
  return trimmed;
}
