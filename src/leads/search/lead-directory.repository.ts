import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { LeadSearch } from './lead-search';
import type { NormalizedLead } from '../upload';

/** A lead as the dashboard shows it (docs/dashboard.md#leads). */
export interface LeadRecord extends NormalizedLead {
  id: number;
  campaign_id: number;
  tags: string[];
  source: string;
  import_id: string;
  created_at: Date;
}

/** A lead found by a search, with its key in the search's order (for the next page's cursor). */
export interface FoundLead extends LeadRecord {
  sort_key: string;
}

/** A query and its parameters, for `DataSource.query` (and `EXPLAIN` in the benchmark). */
export interface SqlQuery {
  text: string;
  values: unknown[];
}

const LEAD_COLUMNS = `l.id::int8::text AS id, l.campaign_id, l.phone, l.first_name, l.last_name, l.email,
       l.company, l.title, l.tags, l.source, l.import_id, l.created_at`;

/**
 * The keys of the search indexes (migration `LeadSearch`), written exactly as they are
 * indexed so that the planner matches them: PostgreSQL's `lower`, in the `C` collation.
 */
const SEARCH_KEYS = {
  phone: `l.phone COLLATE "C"`,
  email: `lower(l.email) COLLATE "C"`,
  name: `lower(coalesce(l.first_name, '') || ' ' || coalesce(l.last_name, '')) COLLATE "C"`,
  reversedName: `lower(coalesce(l.last_name, '') || ' ' || coalesce(l.first_name, '')) COLLATE "C"`,
} as const;

/** `text` as a `LIKE` prefix pattern: its `\`, `%` and `_` escaped, then `%`. */
function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The SQL of a lead search in campaign `campaignId` (docs/dashboard.md#leads), exactly as the
 * service runs it (the benchmark `bench/lead-search.mjs` explains this text): one index range
 * per branch, read in index order, `search.limit + 1` rows (the extra one tells whether there
 * is a next page).
 * - phone: `phone = $2` on `uq_lead_campaign_id_phone`.
 * - email: `lower(email) LIKE lower($2) || '%'` on `idx_lead_search_email`, after the cursor's
 *   `(key, id)`.
 * - name: the same on `idx_lead_search_name` ("first last"), and on
 *   `idx_lead_search_name_reversed` ("last first") for the leads the first did not match; the
 *   two ordered branches are merged by key and id.
 */
export function leadSearchSql(campaignId: number, search: LeadSearch): SqlQuery {
  const values: unknown[] = [campaignId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const limit = param(search.limit + 1);
  if (search.field === 'phone') {
    return {
      text: `SELECT ${LEAD_COLUMNS}, l.phone AS sort_key FROM lead l
              WHERE l.campaign_id = $1 AND l.phone = ${param(search.value)}
              LIMIT ${limit}`,
      values,
    };
  }
  const pattern = `lower(${param(likePrefix(search.value))})`;
  const after = search.after && {
    key: `${param(search.after.key)}::text COLLATE "C"`,
    id: `${param(search.after.id)}::bigint`,
  };
  const branch = (key: string, exclude?: string) =>
    `SELECT ${LEAD_COLUMNS}, ${key} AS sort_key FROM lead l
      WHERE l.campaign_id = $1 AND ${key} LIKE ${pattern}` +
    (exclude ? ` AND NOT (${exclude} LIKE ${pattern})` : '') +
    (after ? ` AND (${key}, l.id) > (${after.key}, ${after.id})` : '') +
    ` ORDER BY ${key}, l.id LIMIT ${limit}`;
  if (search.field === 'email') return { text: branch(SEARCH_KEYS.email), values };
  return {
    text: `SELECT * FROM ((${branch(SEARCH_KEYS.name)})
                          UNION ALL
                          (${branch(SEARCH_KEYS.reversedName, SEARCH_KEYS.name)})) AS found
            ORDER BY sort_key COLLATE "C", id::int8 LIMIT ${limit}`,
    values,
  };
}

function leadRecord<T extends LeadRecord>(row: T): T {
  return { ...row, id: Number(row.id) };
}

/**
 * Reads leads for the dashboard (docs/dashboard.md#leads): the search and one lead. A declared
 * read model of `lead` (LeadImportModule's table, docs/architecture.md#modules-and-tables):
 * the search runs on that table's own expression indexes; it writes nothing.
 */
@Injectable()
export class LeadDirectoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Up to `search.limit + 1` leads of the campaign matching `search`, in its order. */
  async search(campaignId: number, search: LeadSearch): Promise<FoundLead[]> {
    const { text, values } = leadSearchSql(campaignId, search);
    const rows: FoundLead[] = await this.dataSource.query(text, values);
    return rows.map(leadRecord);
  }

  /** Lead `id`, or null when no lead has that id. */
  async find(id: number): Promise<LeadRecord | null> {
    const rows: LeadRecord[] = await this.dataSource.query(
      `SELECT ${LEAD_COLUMNS} FROM lead l WHERE l.id = $1`,
      [id],
    );
    return rows.length === 0 ? null : leadRecord(rows[0]);
  }
}
