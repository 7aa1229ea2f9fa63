import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { LeadImport } from '..';
import type { ImportRejection } from './import-rejections';
import { newLeads, type ImportCounts, type NewLeadImport } from './lead-import-records';

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

/** An import with its place in the import list: `created_at` in µs since the epoch, as text. */
export type LeadImportRow = LeadImportView & { micros: string };

/** Where a page of a campaign's import list resumes: after this (`created_at`, `id`). */
export interface ImportListPosition {
  /** `created_at` in µs since the epoch: the digits of a PostgreSQL `bigint`. */
  micros: string;
  id: string;
}

/**
 * The SQL of the import history (docs/dashboard.md#imports) and of the import records: it owns
 * `lead_import` and `lead_import_rejection` (written in the lead import's transaction, through
 * `LeadImports`), and, as a declared read model, reads `api_key` and `dashboard_user` (who
 * uploaded) and `campaign` (whether a campaign still exists); see
 * docs/architecture.md#modules-and-tables.
 */
@Injectable()
export class LeadImportsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether campaign `campaignId` exists (its account was checked by the caller's edge). */
  async campaignExists(campaignId: number): Promise<boolean> {
    const [campaign] = await this.dataSource.query('SELECT 1 FROM campaign WHERE id = $1', [
      campaignId,
    ]);
    return campaign !== undefined;
  }

  /**
   * At most `limit` imports of a campaign, newest first (`created_at`, then `id`, descending),
   * after `after` when given.
   */
  listOfCampaign(
    campaignId: number,
    after: ImportListPosition | null,
    limit: number,
  ): Promise<LeadImportRow[]> {
    return this.select(
      `i.campaign_id = $1
         AND ($2::bigint IS NULL OR (i.created_at, i.id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid))
       ORDER BY i.created_at DESC, i.id DESC
       LIMIT $4`,
      [campaignId, after?.micros ?? null, after?.id ?? null, limit],
    );
  }

  /** Import `importId`, else undefined. */
  async findById(importId: string): Promise<LeadImportRow | undefined> {
    const [row] = await this.select(`i.id = $1`, [importId]);
    return row;
  }

  /** Inserts an import's `lead_import` record, in the import's transaction. */
  async insertImport(manager: EntityManager, record: NewLeadImport): Promise<void> {
    // A copy: TypeORM writes generated columns (created_at) back into the object it inserts,
    // and a retried transaction must insert the record as planned, not as the failed run left it.
    await manager.insert(LeadImport, { ...record });
  }

  /**
   * Stores an import's rejected rows (docs/dashboard.md#imports) in its transaction: one
   * statement whatever their number.
   */
  async insertRejections(
    manager: EntityManager,
    importId: string,
    rejections: ImportRejection[],
  ): Promise<void> {
    if (rejections.length === 0) return;
    await manager.query(
      `INSERT INTO lead_import_rejection (import_id, row, field, message, submitted)
       SELECT $1, r.row, r.field, r.message, r.submitted::jsonb
         FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS r(row, field, message, submitted)`,
      [
        importId,
        rejections.map((r) => r.row),
        rejections.map((r) => r.field),
        rejections.map((r) => r.message),
        rejections.map((r) => JSON.stringify(r.submitted)),
      ],
    );
  }

  /** Sets the counts of an import's record, in the import's transaction. */
  async updateImportCounts(
    manager: EntityManager,
    importId: string,
    counts: ImportCounts,
  ): Promise<void> {
    await manager.update(LeadImport, { id: importId }, counts);
  }
  /** The ids of spreadsheet import `spreadsheetImportId`'s chunks (each a `lead_import`), in file order. */
  async chunkIdsOf(spreadsheetImportId: string): Promise<string[]> {
    const chunks: Array<{ id: string }> = await this.dataSource.query(
      'SELECT id FROM lead_import WHERE spreadsheet_import_id = $1 ORDER BY chunk_index',
      [spreadsheetImportId],
    );
    return chunks.map((chunk) => chunk.id);
  }

  /** At most `limit` rejected rows of an import, by row, those after row `afterRow` (0-based). */
  rejections(importId: string, afterRow: number, limit: number): Promise<ImportRejection[]> {
    return this.dataSource.query(
      `SELECT row, field, message, submitted FROM lead_import_rejection
        WHERE import_id = $1 AND row > $2 ORDER BY row LIMIT $3`,
      [importId, afterRow, limit],
    );
  }

  private async select(where: string, params: unknown[]): Promise<LeadImportRow[]> {
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

  /**
   * Deletes the rejected rows of `campaignIds`' imports that name a person, in the caller's
   * transaction (docs/privacy.md#erasure): rows whose `phone`, digits only, is one of
   * `phoneDigits`, or whose `email`, trimmed and lower-cased, is `email`. Reads the rejected
   * rows of the campaigns' imports (kept for the rejected rows' retention only).
   * @returns the import of each deleted row.
   */
  async deletePersonRejections(
    manager: EntityManager,
    campaignIds: number[],
    phoneDigits: string[],
    email: string | null,
  ): Promise<string[]> {
    const [rows]: [Array<{ import_id: string }>] = await manager.query(
      `DELETE FROM lead_import_rejection r
        USING lead_import i
        WHERE r.import_id = i.id AND i.campaign_id = ANY($1::int[])
          AND (regexp_replace(r.submitted ->> 'phone', '[^0-9]', '', 'g') = ANY($2::text[])
               OR lower(btrim(r.submitted ->> 'email')) = $3)
       RETURNING r.import_id`,
      [campaignIds, phoneDigits, email],
    );
    return rows.map((row) => row.import_id);
  }

  /** The API keys that uploaded `importIds` (spreadsheet chunks have none). */
  async apiKeysOf(manager: EntityManager, importIds: string[]): Promise<number[]> {
    const rows: Array<{ api_key_id: number }> = await manager.query(
      `SELECT DISTINCT api_key_id FROM lead_import WHERE id = ANY($1::uuid[]) AND api_key_id IS NOT NULL`,
      [importIds],
    );
    return rows.map((row) => row.api_key_id);
  }
}
