import { Injectable } from '@nestjs/common';
import { CampaignNotFoundError } from '../campaigns';
import { NotFoundError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';
import {
  AccountAccessRepository,
  type AccessIdType,
  type OwnedKind,
} from './account-access.repository';

/**
 * Every kind of resource an account owns that a route may name by id
 * (docs/dashboard.md#access-rules): the type of its id and the noun of its "not found" message
 * (`webhook endpoint 7 does not exist`), the same message the domain service that reads it gives.
 */
export const ACCOUNT_RESOURCES = {
  campaign: { type: 'integer', noun: 'campaign' },
  endpoint: { type: 'integer', noun: 'webhook endpoint' },
  attempt: { type: 'bigint', noun: 'attempt' },
  delivery: { type: 'bigint', noun: 'delivery' },
  recovery: { type: 'integer', noun: 'recovery' },
  lead: { type: 'bigint', noun: 'lead' },
  import: { type: 'uuid', noun: 'import' },
  'spreadsheet-import': { type: 'uuid', noun: 'spreadsheet import' },
  'api-key': { type: 'integer', noun: 'api key' },
} as const satisfies Record<OwnedKind, { type: AccessIdType; noun: string }>;

/** A kind of resource of an account: `campaign`, `endpoint`, `import`, `api-key`, … */
export type AccountResource = keyof typeof ACCOUNT_RESOURCES;

/** The resource kinds, for checks of declarations made by hand. */
export const ACCOUNT_RESOURCE_KINDS: ReadonlySet<string> = new Set(Object.keys(ACCOUNT_RESOURCES));

/**
 * One resource named by a request: an integer id (1 or more, as read from a path), or a UUID
 * in lower case for `import` and `spreadsheet-import`.
 */
export interface ResourceRef {
  resource: AccountResource;
  id: number | string;
}

/** Largest id of a PostgreSQL `bigint`, as the look-up compares it (decimal digits). */
const MAX_INT8 = 9_223_372_036_854_775_807n;

/**
 * "Does resource R with id X belong to account A?" for every resource an account owns
 * (docs/dashboard.md#access-rules, docs/architecture.md#account-access): one indexed look-up
 * per kind, all the kinds a request names in one query. Another account's resource and one
 * that does not exist get the same answer.
 */
@Injectable()
export class AccountAccessService {
  constructor(private readonly repository: AccountAccessRepository) {}

  /**
   * Which of `refs` belong to account `accountId`, in one query (none when every id is out of
   * its type's range, which nothing can have).
   * @returns one boolean per ref, in order.
   */
  async owned(
    accountId: number,
    refs: readonly ResourceRef[],
    campaignIds: readonly number[] | null = null,
  ): Promise<boolean[]> {
    const keys = refs.map(({ resource, id }) => idKey(resource, id));
    const byKind = new Map<OwnedKind, Set<string>>();
    refs.forEach(({ resource }, index) => {
      const key = keys[index];
      if (key === null) return;
      let ids = byKind.get(resource);
      if (!ids) byKind.set(resource, (ids = new Set()));
      ids.add(key);
    });
    if (accountId < 1 || accountId > MAX_INT4 || byKind.size === 0) return refs.map(() => false);
    const found = await this.repository.owned(
      accountId,
      [...byKind].map(([kind, ids]) => ({
        kind,
        type: ACCOUNT_RESOURCES[kind].type,
        ids: [...ids],
      })),
      campaignIds,
    );
    return refs.map(
      ({ resource }, index) => keys[index] !== null && found.get(resource)!.has(keys[index]),
    );
  }

  /**
   * Makes sure every one of `refs` belongs to account `accountId` (one query), and, when
   * `campaignIds` is given (a portal session's scope), to one of those campaigns.
   * @throws NotFoundError for the first that does not, with the message of its domain service
   *   (`campaign 3 does not exist` as a {@link CampaignNotFoundError},
   *   `webhook endpoint 7 does not exist`, `import <uuid> does not exist`, …): the same for
   *   another account's resource and for one that does not exist.
   */
  async requireAll(
    accountId: number,
    refs: readonly ResourceRef[],
    campaignIds: readonly number[] | null = null,
  ): Promise<void> {
    if (refs.length === 0) return;
    const owned = await this.owned(accountId, refs, campaignIds);
    const missing = refs.find((_ref, index) => !owned[index]);
    if (missing) throw notFound(missing);
  }
}

/** The id as the look-up compares it; null for one its type cannot hold (it names nothing). */
function idKey(resource: AccountResource, id: number | string): string | null {
  const { type } = ACCOUNT_RESOURCES[resource];
  if (type === 'uuid') return typeof id === 'string' ? id.toLowerCase() : null;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1) return null;
  if (type === 'integer') return id <= MAX_INT4 ? String(id) : null;
  return BigInt(id) <= MAX_INT8 ? BigInt(id).toString() : null;
}

function notFound({ resource, id }: ResourceRef): NotFoundError {
  if (resource === 'campaign' && typeof id === 'number') return new CampaignNotFoundError(id);
  const { type, noun } = ACCOUNT_RESOURCES[resource];
  const shown = type === 'uuid' && typeof id === 'string' ? id.toLowerCase() : id;
  return new NotFoundError(`${noun} ${shown} does not exist`);
}
