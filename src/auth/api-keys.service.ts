import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { IsNull, Repository } from 'typeorm';
import { ApiKey } from './api-key.entity';
import { generateApiKey, hashApiKey } from './api-key-format';
import { CampaignsService } from '../campaigns/campaigns.service';
import { InvalidInputError } from '../common/invalid-input.error';
import { MAX_INT4 } from '../common/ids';

/** What a bearer token of an API key may do; `campaignIds` null means every campaign of the account. */
export interface ApiKeyAccess {
  apiKeyId: number;
  accountId: number;
  campaignIds: number[] | null;
  revoked: boolean;
}

/**
 * How long a key's revocation state may be served from this process's cache. docs/api.md#authentication
 * requires revoked keys to stop working within 30 seconds; 10 leaves a wide margin.
 */
export const KEY_ACCESS_CACHE_TTL_MS = 10_000;

/** How long the token exchange may serve a key from memory (docs/api.md#errors: a revoked key gets 401). */
export const ACTIVE_KEY_CACHE_TTL_MS = 500;

/**
 * API keys (docs/api.md#authentication): creation and revocation for the operator CLI, look-up by key for the
 * token exchange, and a short-lived cached access check for every authenticated request.
 */
@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);
  /**
   * Active keys by hash, for the token exchange, kept for only {@link ACTIVE_KEY_CACHE_TTL_MS}:
   * enough to absorb bursts of exchanges, short enough that a key revoked by another process
   * (the CLI alone takes longer than this to start) is refused at once. Unknown keys are not
   * cached (random guesses would only fill it).
   */
  private readonly activeByHash = new LRUCache<string, ApiKey>({
    max: 50_000,
    ttl: ACTIVE_KEY_CACHE_TTL_MS,
  });
  private readonly access = new LRUCache<number, ApiKeyAccess>({
    max: 50_000,
    ttl: KEY_ACCESS_CACHE_TTL_MS,
  });

  constructor(
    @InjectRepository(ApiKey) private readonly apiKeys: Repository<ApiKey>,
    private readonly campaigns: CampaignsService,
  ) {}

  /**
   * Creates a key for `accountId`, optionally limited to some of its campaigns.
   * @returns the stored key and the plaintext key, which is never available again.
   * @throws InvalidInputError when the account does not exist or a campaign is not the account's.
   */
  async create(
    accountId: number,
    name?: string,
    campaignIds?: number[],
  ): Promise<{ apiKey: ApiKey; key: string }> {
    if (name !== undefined && (name.trim().length === 0 || name.length > 200)) {
      throw new InvalidInputError('--name must be 1 to 200 characters');
    }
    if (campaignIds && !(await this.campaigns.allBelongTo(accountId, campaignIds))) {
      throw new InvalidInputError(
        `every --campaigns id must be a campaign of account ${accountId}`,
      );
    }
    const { key, hash, displayPrefix } = generateApiKey();
    try {
      const apiKey = await this.apiKeys.save(
        this.apiKeys.create({
          accountId,
          name: name?.trim() ?? null,
          keyHash: hash,
          keyPrefix: displayPrefix,
          campaignIds: campaignIds && campaignIds.length > 0 ? [...new Set(campaignIds)] : null,
          revokedAt: null,
          lastUsedAt: null,
        }),
      );
      return { apiKey, key };
    } catch (error) {
      if ((error as { code?: string }).code === '23503') {
        throw new InvalidInputError(`account ${accountId} does not exist`);
      }
      throw error;
    }
  }

  /**
   * Revokes a key; its tokens stop working within {@link KEY_ACCESS_CACHE_TTL_MS} in every process.
   * Revoking an already revoked key keeps the first revocation time.
   * @throws InvalidInputError when no key has that id.
   */
  async revoke(id: number): Promise<{ id: number; revoked_at: Date }> {
    if (id > MAX_INT4) throw new InvalidInputError(`api key ${id} does not exist`);
    // TypeORM returns [rows, affectedCount] for an UPDATE … RETURNING.
    const [rows]: [Array<{ id: number; revoked_at: Date }>, number] = await this.apiKeys.query(
      `UPDATE api_key SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING id, revoked_at`,
      [id],
    );
    if (rows.length === 0) throw new InvalidInputError(`api key ${id} does not exist`);
    this.access.delete(id);
    for (const [hash, cached] of this.activeByHash.entries()) {
      if (cached.id === id) this.activeByHash.delete(hash);
    }
    return rows[0];
  }

  /**
   * Finds the active (not revoked) key whose plaintext is `key`, and records its use.
   * @returns null for an unknown or revoked key.
   */
  async findActiveByKey(key: string): Promise<ApiKey | null> {
    const hash = hashApiKey(key);
    let apiKey = this.activeByHash.get(hash) ?? null;
    if (!apiKey) {
      apiKey = await this.apiKeys.findOneBy({ keyHash: hash, revokedAt: IsNull() });
      if (!apiKey) return null;
      this.activeByHash.set(hash, apiKey);
    }
    // At most one write a minute per key, whatever the exchange rate, and off the response path.
    if (apiKey.lastUsedAt === null || Date.now() - apiKey.lastUsedAt.getTime() > 60_000) {
      this.apiKeys
        .query(
          `UPDATE api_key SET last_used_at = now()
            WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
          [apiKey.id],
        )
        .catch((error: Error) =>
          this.logger.warn(`Could not record use of API key ${apiKey.id}: ${error.message}`),
        );
      apiKey.lastUsedAt = new Date();
    }
    return apiKey;
  }

  /**
   * The current access of key `apiKeyId`, cached for at most {@link KEY_ACCESS_CACHE_TTL_MS}.
   * @returns null when no such key exists.
   */
  async getAccess(apiKeyId: number): Promise<ApiKeyAccess | null> {
    if (apiKeyId > MAX_INT4) return null;
    const cached = this.access.get(apiKeyId);
    if (cached) return cached;
    const apiKey = await this.apiKeys.findOne({
      where: { id: apiKeyId },
      select: { id: true, accountId: true, campaignIds: true, revokedAt: true },
    });
    if (!apiKey) return null;
    const access: ApiKeyAccess = {
      apiKeyId: apiKey.id,
      accountId: apiKey.accountId,
      campaignIds: apiKey.campaignIds,
      revoked: apiKey.revokedAt !== null,
    };
    this.access.set(apiKeyId, access);
    return access;
  }
}
