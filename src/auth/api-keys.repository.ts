import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository, type EntityManager } from 'typeorm';
import { ApiKey } from './api-key.entity';

/**
 * Every query on `api_key` (docs/architecture.md#modules-and-tables). Ids are assumed to fit
 * PostgreSQL's integer: callers filter larger ones first.
 */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKey) private readonly apiKeys: Repository<ApiKey>) {}

  /**
   * Inserts a key (its hash, never the key), in the caller's transaction when `manager` is given.
   * @throws the driver's foreign-key violation (23503) when the account does not exist.
   */
  insert(
    fields: Pick<ApiKey, 'accountId' | 'name' | 'keyHash' | 'keyPrefix' | 'campaignIds'>,
    manager?: EntityManager,
  ): Promise<ApiKey> {
    const repository = manager?.getRepository(ApiKey) ?? this.apiKeys;
    return repository.save(repository.create({ ...fields, revokedAt: null, lastUsedAt: null }));
  }

  /**
   * Sets `revoked_at` to now unless it is set already, in the caller's transaction when
   * `manager` is given.
   * @returns the key's id and revocation time, or null when no key has that id.
   */
  async revoke(
    id: number,
    manager: EntityManager = this.apiKeys.manager,
  ): Promise<{ id: number; revoked_at: Date } | null> {
    // TypeORM returns [rows, affectedCount] for an UPDATE … RETURNING.
    const [rows]: [Array<{ id: number; revoked_at: Date }>, number] = await manager.query(
      `UPDATE api_key SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING id, revoked_at`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The keys of `accountId`, oldest first (hashes included: callers never show them). */
  listOfAccount(accountId: number): Promise<ApiKey[]> {
    return this.apiKeys.find({ where: { accountId }, order: { id: 'ASC' } });
  }

  /** The unrevoked key whose SHA-256 is `keyHash`, or null. */
  findActiveByHash(keyHash: string): Promise<ApiKey | null> {
    return this.apiKeys.findOneBy({ keyHash, revokedAt: IsNull() });
  }

  /** The columns an access check needs, or null when no key has that id. */
  findAccess(
    id: number,
  ): Promise<Pick<ApiKey, 'id' | 'accountId' | 'campaignIds' | 'revokedAt' | 'keyPrefix'> | null> {
    return this.apiKeys.findOne({
      where: { id },
      select: { id: true, accountId: true, campaignIds: true, revokedAt: true, keyPrefix: true },
    });
  }

  /** Records a use of key `id`, at most once a minute (a no-op within the minute). */
  async touchLastUsed(id: number): Promise<void> {
    await this.apiKeys.query(
      `UPDATE api_key SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id],
    );
  }
}
