import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { AuditLog, type AuditActor } from '../audit';
import type { ApiKey } from './api-key.entity';
import { generateApiKey, hashApiKey } from './api-key-format';
import { ApiKeysRepository } from './api-keys.repository';
import { CampaignsService } from '../campaigns';
import { InvalidInputError, NotFoundError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';

/** What a bearer token of an API key may do; `campaignIds` null means every campaign of the account. */
export interface ApiKeyAccess {
  apiKeyId: number;
  accountId: number;
  campaignIds: number[] | null;
  revoked: boolean;
  /** The key's first characters, as listed (never the key). */
  keyPrefix: string;
}

/** An API key as listed to operators (docs/cli.md): never the key or its hash. */
export interface ApiKeySummary {
  id: number;
  key_prefix: string;
  account_id: number;
  name: string | null;
  campaign_ids: number[] | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/**
 * How long a key's revocation state may be served from this process's cache: a revoked key's
 * tokens stop working within this time in every process, the figure docs/api.md#authentication,
 * docs/cli.md, the README and the dashboard's revoke dialog give (10 seconds).
 */
export const KEY_ACCESS_CACHE_TTL_MS = 10_000;

/** How long the token exchange may serve a key from memory (docs/api.md#errors: a revoked key gets 401). */
export const ACTIVE_KEY_CACHE_TTL_MS = 500;

/**
 * API keys (docs/api.md#authentication): creation and revocation for the operator CLI, look-up by key for the
 * token exchange, and a short-lived cached access check for every authenticated request.
 * A creation or revocation is recorded in the audit log under the caller's `AuditActor` in its
 * own transaction (docs/architecture.md#who-writes-the-audit-log); never the key.
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
    private readonly apiKeys: ApiKeysRepository,
    private readonly campaigns: CampaignsService,
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Creates a key for `accountId`, optionally limited to some of its campaigns. Recorded as
   * `api_key.create` (`{name, key_prefix, campaign_ids}`) in the same transaction; nothing is
   * recorded without an `actor`.
   * @returns the stored key and the plaintext key, which is never available again.
   * @throws InvalidInputError (field `name` or `campaigns`) for a bad name or a campaign that
   *   is not the account's; NotFoundError when the account does not exist.
   */
  async create(
    accountId: number,
    name?: string,
    campaignIds?: number[],
    actor?: AuditActor,
  ): Promise<{ apiKey: ApiKey; key: string }> {
    if (name !== undefined && (name.trim().length === 0 || name.length > 200)) {
      throw InvalidInputError.field('name', 'must be 1 to 200 characters');
    }
    if (campaignIds && !(await this.campaigns.allBelongTo(accountId, campaignIds))) {
      throw new InvalidInputError(
        `every campaigns id must be a campaign of account ${accountId}`,
        'campaigns',
      );
    }
    const { key, hash, displayPrefix } = generateApiKey();
    try {
      const apiKey = await this.dataSource.transaction(async (manager) => {
        const inserted = await this.apiKeys.insert(
          {
            accountId,
            name: name?.trim() ?? null,
            keyHash: hash,
            keyPrefix: displayPrefix,
            campaignIds: campaignIds && campaignIds.length > 0 ? [...new Set(campaignIds)] : null,
          },
          manager,
        );
        await this.audit.recordChange(
          actor,
          {
            accountId: inserted.accountId,
            action: 'api_key.create',
            objectType: 'api_key',
            objectId: inserted.id,
            details: {
              name: inserted.name,
              key_prefix: inserted.keyPrefix,
              campaign_ids: inserted.campaignIds,
            },
          },
          manager,
        );
        return inserted;
      });
      return { apiKey, key };
    } catch (error) {
      if ((error as { code?: string }).code === '23503') {
        throw new NotFoundError(`account ${accountId} does not exist`);
      }
      throw error;
    }
  }

  /**
   * The keys of account `accountId`, oldest first, revoked ones included; never a key or hash.
   * @throws NotFoundError when the account does not exist.
   */
  async list(accountId: number): Promise<ApiKeySummary[]> {
    await this.campaigns.requireAccount(accountId);
    const keys = await this.apiKeys.listOfAccount(accountId);
    return keys.map((key) => ({
      id: key.id,
      key_prefix: key.keyPrefix,
      account_id: key.accountId,
      name: key.name,
      campaign_ids: key.campaignIds,
      created_at: key.createdAt,
      revoked_at: key.revokedAt,
      last_used_at: key.lastUsedAt,
    }));
  }

  /**
   * Revokes a key; its tokens stop working within {@link KEY_ACCESS_CACHE_TTL_MS} in every process.
   * Revoking an already revoked key keeps the first revocation time. Recorded as
   * `api_key.revoke` (each time) in the same transaction, under the key's account; nothing
   * without an `actor`. No account is checked here: the dashboard passes an `Owned<'api-key'>`
   * its resource guard checked (docs/architecture.md#account-access), the CLI any key.
   * @throws NotFoundError when no key has that id.
   */
  async revoke(id: number, actor?: AuditActor): Promise<{ id: number; revoked_at: Date }> {
    const key = id > MAX_INT4 ? null : await this.apiKeys.findAccess(id);
    const revoked = !key
      ? null
      : await this.dataSource.transaction(async (manager) => {
          const row = await this.apiKeys.revoke(id, manager);
          if (row) {
            await this.audit.recordChange(
              actor,
              {
                accountId: key.accountId,
                action: 'api_key.revoke',
                objectType: 'api_key',
                objectId: id,
              },
              manager,
            );
          }
          return row;
        });
    if (!revoked) throw new NotFoundError(`api key ${id} does not exist`);
    this.access.delete(id);
    for (const [hash, cached] of this.activeByHash.entries()) {
      if (cached.id === id) this.activeByHash.delete(hash);
    }
    return revoked;
  }

  /**
   * Finds the active (not revoked) key whose plaintext is `key`, and records its use.
   * @returns null for an unknown or revoked key.
   */
  async findActiveByKey(key: string): Promise<ApiKey | null> {
    const hash = hashApiKey(key);
    let apiKey = this.activeByHash.get(hash) ?? null;
    if (!apiKey) {
      apiKey = await this.apiKeys.findActiveByHash(hash);
      if (!apiKey) return null;
      this.activeByHash.set(hash, apiKey);
    }
    // At most one write a minute per key, whatever the exchange rate, and off the response path.
    if (apiKey.lastUsedAt === null || Date.now() - apiKey.lastUsedAt.getTime() > 60_000) {
      this.apiKeys
        .touchLastUsed(apiKey.id)
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
    const apiKey = await this.apiKeys.findAccess(apiKeyId);
    if (!apiKey) return null;
    const access: ApiKeyAccess = {
      apiKeyId: apiKey.id,
      accountId: apiKey.accountId,
      campaignIds: apiKey.campaignIds,
      revoked: apiKey.revokedAt !== null,
      keyPrefix: apiKey.keyPrefix,
    };
    this.access.set(apiKeyId, access);
    return access;
  }
}
