import { Injectable, Module } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InvalidInputError, NotFoundError } from '../common/domain-error';
import { decodeCursorText, encodeCursorText, int8OrNull } from '../common/opaque-cursor';
import type { ImportRejection } from './import-rejections';
import { newLeads } from './lead-batch';
import { LeadImport } from './lead-import.entity';
import { LeadImportRejection } from './lead-import-rejection.entity';

/** Imports per page when the caller names no `limit`, and the most it may ask for. */
export const IMPORTS_PAGE_DEFAULT = 50;
export const IMPORTS_PAGE_MAX = 200;
/** Rejected rows per page when the caller names no `limit`, and the most it may ask for. */
export const REJECTIONS_PAGE_DEFAULT = 100;
export const REJECTIONS_PAGE_MAX = 1_000;

/**
 * One import as the dashboard shows it (docs/dashboard.md#imports): its compliance record and
 * its counts, as the 202 answered them.
 */
export interface LeadImportView {
  id: string;
  campaign_id: number;
  created_at: Date;
  /**
   * The API key that uploaded: its id, name and the prefix shown in the key list; null for a
   * chunk of a spreadsheet import.
   */
  api_key: { id: number; name: string | null; prefix: string } | null;
  /** The dashboard user who imported a spreadsheet (docs/dashboard.md#spreadsheet-imports). */
  user: { id: number; email: string } | null;
  /** The spreadsheet import this import is a chunk of. */
  spreadsheet_import_id: string | null;
  source: string;
  tags: string[];
  disclaimer_version: string;
  compliance_acknowledged_at: Date;
  client_ip: string | null;
  /**
   * The upload's counts as the 202 answered them (docs/api.md#duplicates-and-counts):
   * `received_count` rows read, `valid_count` valid leads (the new ones and the duplicates
   * skipped), `invalid_count` rows rejected, `duplicate_count` duplicates skipped.
   */
  received_count: number;
  valid_count: number;
  invalid_count: number;
  duplicate_count: number;
  /**
   * New leads stored, `valid_count − duplicate_count`: the dashboard's "New leads"
   * (docs/dashboard.md#imports), so that rows read = new + duplicates skipped + rejected.
   */
  new_count: number;
  /** How many rejected rows are kept (0 once retention removed them). */
  rejected_rows_kept: number;
}

/** A page of a list, with the opaque cursor of the next one (null: this is the last). */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** An import list's cursor: `<created_at in µs since the epoch>.<import id>`. */
const IMPORT_CURSOR =
  /^(0|[1-9]\d{0,18})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
/** A rejected rows list's cursor: `r<row>`, a 0-based row of at most 9 digits (an `integer`). */
const ROW_CURSOR = /^r(0|[1-9]\d{0,8})$/;
const MAX_CURSOR_LENGTH = 96;

function badCursor(): InvalidInputError {
  return InvalidInputError.field('cursor', 'is not a cursor of this list');
}

/**
 * The position in a campaign's import list that `value` names (docs/security.md#cursors): the
 * canonical base64url of UTF-8 text ({@link decodeCursorText}) matching {@link IMPORT_CURSOR},
 * its time within PostgreSQL's `bigint`.
 * @throws InvalidInputError (field `cursor`) otherwise.
 */
function decodeImportCursor(value: string): { micros: string; id: string } {
  const text = decodeCursorText(value, MAX_CURSOR_LENGTH);
  const match = text === null ? null : IMPORT_CURSOR.exec(text);
  if (!match || int8OrNull(match[1]) === null) throw badCursor();
  return { micros: match[1], id: match[2] };
}

/**
 * The last row of the previous page of rejected rows that `value` names, as
 * {@link decodeImportCursor} reads an import cursor, with {@link ROW_CURSOR}.
 * @throws InvalidInputError (field `cursor`) otherwise.
 */
function decodeRowCursor(value: string): number {
  const text = decodeCursorText(value, MAX_CURSOR_LENGTH);
  const match = text === null ? null : ROW_CURSOR.exec(text);
  if (!match) throw badCursor();
  return Number(match[1]);
}

const encode = encodeCursorText;

/** A page size as a client writes it: absent is `fallback`; else 1 to `max` decimal digits. */
export function pageSize(value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const size = /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : NaN;
  if (!(size <= max)) throw InvalidInputError.field('limit', `must be an integer from 1 to ${max}`);
  return size;
}

/**
 * The import history of campaigns (docs/dashboard.md#imports): every upload's compliance
 * record and counts, and the rows it rejected. Reads only; every id is scoped to an account
 * (another account's campaign or import is "not found", like one that does not exist).
 */
@Injectable()
export class LeadImports {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A campaign's imports, newest first, keyset-paged.
   * @throws NotFoundError for a campaign not of `accountId`; InvalidInputError (field
   *   `cursor`) for a cursor this list did not make.
   */
  async list(
    accountId: number,
    campaignId: number,
    limit: number,
    cursor?: string,
  ): Promise<Page<LeadImportView>> {
    const [campaign] = await this.dataSource.query(
      'SELECT 1 FROM campaign WHERE id = $1 AND account_id = $2',
      [campaignId, accountId],
    );
    if (!campaign) throw new NotFoundError(`campaign ${campaignId} does not exist`);
    const after = cursor === undefined ? null : decodeImportCursor(cursor);
    const rows = await this.select(
      `i.campaign_id = $1
         AND ($2::bigint IS NULL OR (i.created_at, i.id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid))
       ORDER BY i.created_at DESC, i.id DESC
       LIMIT $4`,
      [campaignId, after?.micros ?? null, after?.id ?? null, limit + 1],
    );
    const items = rows.slice(0, limit);
    const last = rows.length > limit ? items[items.length - 1] : null;
    return {
      items: items.map(({ micros: _micros, ...view }) => view),
      next_cursor: last ? encode(`${last.micros}.${last.id}`) : null,
    };
  }

  /**
   * One import of the account.
   * @throws NotFoundError for an unknown import or another account's.
   */
  async find(accountId: number, importId: string): Promise<LeadImportView> {
    const [row] = await this.select(
      `i.id = $1 AND i.campaign_id IN (SELECT id FROM campaign WHERE account_id = $2)`,
      [importId, accountId],
    );
    if (!row) throw new NotFoundError(`import ${importId} does not exist`);
    const { micros: _micros, ...view } = row;
    return view;
  }

  /**
   * An import's rejected rows by row, keyset-paged.
   * @throws NotFoundError for an unknown import or another account's; InvalidInputError
   *   (field `cursor`) for a cursor this list did not make.
   */
  async rejections(
    accountId: number,
    importId: string,
    limit: number,
    cursor?: string,
  ): Promise<Page<ImportRejection>> {
    await this.find(accountId, importId);
    const after = cursor === undefined ? -1 : decodeRowCursor(cursor);
    const rows: ImportRejection[] = await this.dataSource.query(
      `SELECT row, field, message, submitted FROM lead_import_rejection
        WHERE import_id = $1 AND row > $2 ORDER BY row LIMIT $3`,
      [importId, after, limit + 1],
    );
    const items = rows.slice(0, limit);
    const last = rows.length > limit ? items[items.length - 1] : null;
    return { items, next_cursor: last ? encode(`r${last.row}`) : null };
  }

  /**
   * Every rejected row of an import, by row, `pageSize` at a time: for a CSV written as it is
   * read, never held whole in memory.
   * @throws NotFoundError for an unknown import or another account's (before the first page).
   */
  async *allRejections(
    accountId: number,
    importId: string,
    pageSize = REJECTIONS_PAGE_MAX,
  ): AsyncGenerator<ImportRejection[]> {
    let cursor: string | undefined;
    do {
      const page = await this.rejections(accountId, importId, pageSize, cursor);
      if (page.items.length > 0) yield page.items;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  private async select(
    where: string,
    params: unknown[],
  ): Promise<Array<LeadImportView & { micros: string }>> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT i.id, i.campaign_id, i.created_at,
              (extract(epoch FROM i.created_at) * 1000000)::bigint::text AS micros,
              k.id AS api_key_id, k.name AS api_key_name, k.key_prefix AS api_key_prefix,
              u.id AS user_id, u.email AS user_email, i.spreadsheet_import_id,
              i.source, i.tags, i.disclaimer_version, i.compliance_acknowledged_at, i.client_ip,
              i.received_count, i.valid_count, i.invalid_count, i.duplicate_count,
              (SELECT count(*) FROM lead_import_rejection r WHERE r.import_id = i.id)::int AS rejected_rows_kept
         FROM lead_import i
         LEFT JOIN api_key k ON k.id = i.api_key_id
         LEFT JOIN dashboard_user u ON u.id = i.user_id
        WHERE ${where}`,
      params,
    );
    return rows.map((row) => ({
      id: row.id as string,
      campaign_id: row.campaign_id as number,
      created_at: row.created_at as Date,
      micros: row.micros as string,
      api_key:
        row.api_key_id === null
          ? null
          : {
              id: row.api_key_id as number,
              name: row.api_key_name as string | null,
              prefix: row.api_key_prefix as string,
            },
      user:
        row.user_id === null
          ? null
          : { id: row.user_id as number, email: row.user_email as string },
      spreadsheet_import_id: row.spreadsheet_import_id as string | null,
      source: row.source as string,
      tags: row.tags as string[],
      disclaimer_version: row.disclaimer_version as string,
      compliance_acknowledged_at: row.compliance_acknowledged_at as Date,
      client_ip: row.client_ip as string | null,
      received_count: row.received_count as number,
      valid_count: row.valid_count as number,
      invalid_count: row.invalid_count as number,
      duplicate_count: row.duplicate_count as number,
      new_count: newLeads(row.valid_count as number, row.duplicate_count as number),
      rejected_rows_kept: row.rejected_rows_kept as number,
    }));
  }
}

/** The import history's reads ({@link LeadImports}), for the dashboard. */
@Module({
  imports: [TypeOrmModule.forFeature([LeadImport, LeadImportRejection])],
  providers: [LeadImports],
  exports: [LeadImports],
})
export class LeadImportsModule {}
