import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The PostgreSQL type of a resource's id, which the look-up casts its ids to. */
export type AccessIdType = 'integer' | 'bigint' | 'uuid';

/**
 * How to tell a resource's account from its id: the `FROM … WHERE` part of a select whose alias
 * `r` is the resource's row, `$1` the account and `$ids` its ids (an array of
 * {@link AccessIdType}). Every one reads primary keys only: the resource's, then its parents'
 * up to `campaign.account_id` (or `api_key.account_id`).
 */
const OWNER_PATHS = {
  campaign: `campaign r WHERE r.id = ANY($ids) AND r.account_id = $1`,
  endpoint: `webhook_endpoint r JOIN campaign c ON c.id = r.campaign_id
              WHERE r.id = ANY($ids) AND c.account_id = $1`,
  attempt: `webhook_delivery_attempt r JOIN webhook_endpoint e ON e.id = r.endpoint_id
              JOIN campaign c ON c.id = e.campaign_id WHERE r.id = ANY($ids) AND c.account_id = $1`,
  delivery: `webhook_delivery r JOIN webhook_endpoint e ON e.id = r.endpoint_id
              JOIN campaign c ON c.id = e.campaign_id WHERE r.id = ANY($ids) AND c.account_id = $1`,
  recovery: `delivery_recovery r JOIN webhook_endpoint e ON e.id = r.endpoint_id
              JOIN campaign c ON c.id = e.campaign_id WHERE r.id = ANY($ids) AND c.account_id = $1`,
  lead: `lead r JOIN campaign c ON c.id = r.campaign_id WHERE r.id = ANY($ids) AND c.account_id = $1`,
  import: `lead_import r JOIN campaign c ON c.id = r.campaign_id
              WHERE r.id = ANY($ids) AND c.account_id = $1`,
  'spreadsheet-import': `spreadsheet_import r JOIN campaign c ON c.id = r.campaign_id
              WHERE r.id = ANY($ids) AND c.account_id = $1`,
  'api-key': `api_key r WHERE r.id = ANY($ids) AND r.account_id = $1`,
} as const;

/**
 * The column of each path's rows that names the resource's campaign, for a look-up limited to
 * some campaigns (a portal session's, docs/dashboard.md#embedding-the-portal); null for a
 * resource of the account that belongs to no campaign (`api-key`).
 */
const CAMPAIGN_COLUMNS: Record<keyof typeof OWNER_PATHS, string | null> = {
  campaign: 'r.id',
  endpoint: 'r.campaign_id',
  attempt: 'e.campaign_id',
  delivery: 'e.campaign_id',
  recovery: 'e.campaign_id',
  lead: 'r.campaign_id',
  import: 'r.campaign_id',
  'spreadsheet-import': 'r.campaign_id',
  'api-key': null,
};

/** A kind of resource whose account {@link AccountAccessRepository} can tell. */
export type OwnedKind = keyof typeof OWNER_PATHS;

/** The ids to look up of one kind, as decimal digits (integers) or lower-case UUIDs. */
export interface OwnedLookup {
  kind: OwnedKind;
  type: AccessIdType;
  ids: readonly string[];
}

/**
 * The one query of the account check (docs/dashboard.md#access-rules): which of some resources'
 * ids belong to an account. It reads, and only reads, the id and parent columns of tables other
 * modules own (`campaign`, `webhook_endpoint`, `webhook_delivery`, `webhook_delivery_attempt`,
 * `delivery_recovery`, `lead`, `lead_import`, `spreadsheet_import`, `api_key`): the one place
 * that knows how each resource leads to its account (docs/architecture.md#account-access).
 */
@Injectable()
export class AccountAccessRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Which of the ids of `lookups` name a resource of account `accountId`, in one statement
   * whatever the number of kinds (one `SELECT` per kind, joined by `UNION ALL`).
   * @param accountId an `integer` account id.
   * @param lookups each kind once at most, with ids that fit its type (the caller drops the
   *   others: they name nothing).
   * @param campaignIds when given, only resources of these campaigns count (a resource of no
   *   campaign, an API key, then never does).
   * @returns per kind, the ids found, written as they were given.
   */
  async owned(
    accountId: number,
    lookups: readonly OwnedLookup[],
    campaignIds: readonly number[] | null = null,
  ): Promise<Map<OwnedKind, Set<string>>> {
    const found = new Map<OwnedKind, Set<string>>(lookups.map(({ kind }) => [kind, new Set()]));
    const asked = lookups.filter(({ ids }) => ids.length > 0);
    if (asked.length === 0) return found;
    const campaignParam = `$${asked.length + 2}`;
    const selects = asked.map(({ kind, type }, index) => {
      const column = CAMPAIGN_COLUMNS[kind];
      const scope =
        campaignIds === null
          ? ''
          : column === null
            ? ' AND false'
            : ` AND ${column} = ANY(${campaignParam}::int[])`;
      return `SELECT ${index}::int AS kind, r.id::text AS id FROM ${OWNER_PATHS[kind].replace(
        '$ids',
        `$${index + 2}::${type}[]`,
      )}${scope}`;
    });
    const params: unknown[] = [accountId, ...asked.map(({ ids }) => ids)];
    if (campaignIds !== null) params.push(campaignIds);
    const rows: Array<{ kind: number; id: string }> = await this.dataSource.query(
      selects.join(' UNION ALL '),
      params,
    );
    for (const row of rows) found.get(asked[row.kind].kind)!.add(row.id);
    return found;
  }
}
