import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { ColumnMapping, SpreadsheetFormat } from '..';
import { READ_SLICE_BYTES } from './spreadsheet-files';

/** A running import as the worker that claimed it needs it. */
export interface ClaimedImport {
  id: string;
  campaign_id: number;
  user_id: number;
  format: SpreadsheetFormat;
  part_count: number;
  mapping: ColumnMapping;
  source: string;
  tags: string[];
  skip_duplicates: boolean;
  disclaimer_version: string;
  compliance_acknowledged_at: Date;
  client_ip: string | null;
  rows_read: number;
  next_chunk: number;
}

/** What a new upload's row holds (docs/dashboard.md#spreadsheet-imports). */
export interface UploadedImport {
  id: string;
  campaignId: number;
  userId: number;
  fileName: string;
  format: SpreadsheetFormat;
  sizeBytes: number;
  headers: string[];
  sampleRows: string[][];
  suggestedMapping: ColumnMapping;
  /** Non-blank data rows in the file. */
  totalRows: number;
}

/** The compliance record and options a start stores (docs/dashboard.md#spreadsheet-imports). */
export interface StartedImport {
  mapping: ColumnMapping;
  source: string;
  tags: string[];
  skipDuplicates: boolean;
  disclaimerVersion: string;
  clientIp: string | null;
}

/** One chunk's counts, for {@link SpreadsheetImportsRepository.advance}. */
export interface ChunkProgress {
  /** The chunk committed: the import must be at it. */
  chunkIndex: number;
  rows: number;
  valid: number;
  invalid: number;
  duplicates: number;
}

/**
 * An import's row as the dashboard reads it: every column of `spreadsheet_import` it shows,
 * with the uploader's email as `user_email` (snake_case, as PostgreSQL names them).
 */
export type SpreadsheetImportRow = Record<string, unknown>;

/** The columns of a list item: every one but the file's header row and sample rows. */
const SUMMARY_COLUMNS = `s.id, s.campaign_id, s.user_id, u.email AS user_email, s.file_name, s.format,
  s.size_bytes, s.total_rows, s.status, s.mapping, s.source, s.tags,
  s.skip_duplicates, s.disclaimer_version, s.compliance_acknowledged_at, s.rows_read, s.next_chunk,
  s.valid_count, s.invalid_count, s.duplicate_count, s.error, s.created_at, s.started_at,
  s.finished_at`;

/** The columns of one import: a list item's, and the header row, sample rows and suggestion. */
const COLUMNS = `${SUMMARY_COLUMNS}, s.headers, s.sample_rows, s.suggested_mapping`;

/**
 * Every query on `spreadsheet_import` and `spreadsheet_import_file_part`
 * (docs/dashboard.md#spreadsheet-imports), for the dashboard's side (`SpreadsheetImports`) and
 * the worker's (`SpreadsheetImportRunner`, through `SpreadsheetImports`); the uploader's email
 * is read from `dashboard_user` (a declared read model, docs/architecture.md#modules-and-tables).
 * An import's chunks and their rejected rows are `LeadImports`'. Methods taking an `EntityManager` run in the caller's transaction;
 * a lease is a worker's `lease_owner` with its `lease_expires_at`.
 */
/**
 * Deletes the uploads never started that are older than `$1` ms, through the partial index
 * `idx_spreadsheet_import_uploaded` (exported for the test of its plan).
 */
export const DELETE_UNSTARTED_SQL = `DELETE FROM spreadsheet_import
  WHERE status = 'uploaded' AND created_at < now() - $1 * interval '1 millisecond'
  RETURNING id`;

@Injectable()
export class SpreadsheetImportsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inserts a new import, `uploaded`, with no parts yet (`part_count` 0). */
  async insertUploaded(manager: EntityManager, upload: UploadedImport): Promise<void> {
    await manager.query(
      `INSERT INTO spreadsheet_import (id, campaign_id, user_id, file_name, format, size_bytes,
         part_count, headers, sample_rows, suggested_mapping, total_rows, status)
       VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, $9, $10, 'uploaded')`,
      [
        upload.id,
        upload.campaignId,
        upload.userId,
        upload.fileName,
        upload.format,
        upload.sizeBytes,
        JSON.stringify(upload.headers),
        JSON.stringify(upload.sampleRows),
        JSON.stringify(upload.suggestedMapping),
        upload.totalRows,
      ],
    );
  }

  /** Inserts part `part` (from 0) of import `importId`'s file. */
  async insertFilePart(
    manager: EntityManager,
    importId: string,
    part: number,
    data: Buffer,
  ): Promise<void> {
    await manager.query(
      'INSERT INTO spreadsheet_import_file_part (import_id, part, data) VALUES ($1, $2, $3)',
      [importId, part, data],
    );
  }

  /** Records how many parts the import's file was stored in. */
  async setPartCount(manager: EntityManager, id: string, partCount: number): Promise<void> {
    await manager.query('UPDATE spreadsheet_import SET part_count = $2 WHERE id = $1', [
      id,
      partCount,
    ]);
  }

  /**
   * At most {@link READ_SLICE_BYTES} of a stored part from byte `offset` (1-based): empty past
   * the part's end.
   * @returns null when the import has no such part.
   */
  async filePartSlice(importId: string, part: number, offset: number): Promise<Buffer | null> {
    const [row]: Array<{ data: Buffer }> = await this.dataSource.query(
      `SELECT substring(data FROM $3 FOR ${READ_SLICE_BYTES}) AS data
         FROM spreadsheet_import_file_part WHERE import_id = $1 AND part = $2`,
      [importId, part, offset],
    );
    return row ? row.data : null;
  }

  /** Import `id`, else undefined. */
  async findById(id: string): Promise<SpreadsheetImportRow | undefined> {
    const [row] = await this.select('s.id = $1', [id]);
    return row;
  }

  /**
   * The campaign's last `limit` imports, newest first, without their header rows, sample rows
   * and suggested mappings (a list item stays small whatever the file's headers).
   */
  listOfCampaign(campaignId: number, limit: number): Promise<SpreadsheetImportRow[]> {
    return this.select(
      `s.campaign_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT $2`,
      [campaignId, limit],
      SUMMARY_COLUMNS,
    );
  }

  /**
   * In one transaction: moves an `uploaded` import to `running` with its mapping and compliance
   * record, acknowledged and started now, then runs `whenStarted` (the audit entry) in that
   * transaction if it did.
   * @returns whether this call started it (false when it was no longer `uploaded`).
   */
  start(
    id: string,
    options: StartedImport,
    whenStarted?: (manager: EntityManager) => Promise<void>,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [rows]: [unknown[]] = await manager.query(
        `UPDATE spreadsheet_import
            SET status = 'running', mapping = $2, source = $3, tags = $4, skip_duplicates = $5,
                disclaimer_version = $6, compliance_acknowledged_at = now(), client_ip = $7,
                started_at = now()
          WHERE id = $1 AND status = 'uploaded'
          RETURNING id`,
        [
          id,
          JSON.stringify(options.mapping),
          options.source,
          options.tags,
          options.skipDuplicates,
          options.disclaimerVersion,
          options.clientIp,
        ],
      );
      if (rows.length > 0 && whenStarted) await whenStarted(manager);
      return rows.length > 0;
    });
  }

  /**
   * In one transaction: cancels the import if `uploaded` or `running` (ended now, its lease
   * dropped), deletes its stored file, then runs `whenCancelled` (the audit entry, given the
   * rows read as of the cancel) in that transaction if it did.
   * @returns whether this call cancelled it.
   */
  cancel(
    id: string,
    whenCancelled?: (manager: EntityManager, rowsRead: number) => Promise<void>,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [rows]: [Array<{ rows_read: number }>] = await manager.query(
        `UPDATE spreadsheet_import
            SET status = 'cancelled', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
          WHERE id = $1 AND status IN ('uploaded', 'running')
          RETURNING rows_read`,
        [id],
      );
      if (rows.length > 0) {
        await manager.query('DELETE FROM spreadsheet_import_file_part WHERE import_id = $1', [id]);
        if (whenCancelled) await whenCancelled(manager, rows[0].rows_read);
      }
      return rows.length > 0;
    });
  }

  /**
   * Deletes the imports still `uploaded` that were created more than `ageMs` ago, with their
   * stored files (the parts go by cascade).
   * @returns how many were deleted.
   */
  async deleteUnstartedOlderThan(ageMs: number): Promise<number> {
    const [rows]: [unknown[]] = await this.dataSource.query(DELETE_UNSTARTED_SQL, [ageMs]);
    return rows.length;
  }

  /**
   * In one transaction: deletes the import with its stored file if it is still `uploaded`, then
   * runs `whenDiscarded` (the audit entry) in that transaction if it did.
   * @returns whether this call deleted it.
   */
  discard(id: string, whenDiscarded?: (manager: EntityManager) => Promise<void>): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [rows]: [unknown[]] = await manager.query(
        `DELETE FROM spreadsheet_import WHERE id = $1 AND status = 'uploaded' RETURNING id`,
        [id],
      );
      if (rows.length > 0 && whenDiscarded) await whenDiscarded(manager);
      return rows.length > 0;
    });
  }

  /**
   * Takes the oldest `running` import whose lease is free or ran out, leasing it to `owner`
   * for `leaseMs` (`FOR UPDATE SKIP LOCKED`: one worker per import).
   * @returns the import, or null when none is ready.
   */
  async claim(owner: string, leaseMs: number): Promise<ClaimedImport | null> {
    const [rows]: [ClaimedImport[]] = await this.dataSource.query(
      `UPDATE spreadsheet_import
          SET lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond'
        WHERE id = (SELECT id FROM spreadsheet_import
                     WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < now())
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, campaign_id, user_id, format, part_count, mapping, source, tags,
                  skip_duplicates, disclaimer_version, compliance_acknowledged_at, client_ip,
                  rows_read, next_chunk`,
      [owner, leaseMs],
    );
    return rows[0] ?? null;
  }

  /**
   * Adds a committed chunk's counts to the import and renews the lease for `leaseMs`, in the
   * chunk's transaction, if the import is still `running`, `owner`'s, and at that chunk.
   * @returns whether it was (false: the caller rolls the chunk back).
   */
  async advance(
    manager: EntityManager,
    id: string,
    owner: string,
    chunk: ChunkProgress,
    leaseMs: number,
  ): Promise<boolean> {
    const [rows]: [unknown[]] = await manager.query(
      `UPDATE spreadsheet_import
          SET rows_read = rows_read + $4, next_chunk = next_chunk + 1,
              valid_count = valid_count + $5, invalid_count = invalid_count + $6,
              duplicate_count = duplicate_count + $7,
              lease_expires_at = now() + $8 * interval '1 millisecond'
        WHERE id = $1 AND status = 'running' AND lease_owner = $2 AND next_chunk = $3
        RETURNING id`,
      [
        id,
        owner,
        chunk.chunkIndex,
        chunk.rows,
        chunk.valid,
        chunk.invalid,
        chunk.duplicates,
        leaseMs,
      ],
    );
    return rows.length > 0;
  }

  /** Frees `owner`'s lease on the import, so another worker may take it at once. */
  async releaseLease(id: string, owner: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE spreadsheet_import SET lease_owner = NULL, lease_expires_at = NULL
        WHERE id = $1 AND lease_owner = $2`,
      [id, owner],
    );
  }

  /**
   * In one transaction: ends the import with `status` and `error` if it is still `running`
   * and `owner`'s (its lease dropped), and then deletes its stored file.
   */
  async finish(
    id: string,
    owner: string,
    status: 'done' | 'failed',
    error: string | null,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [rows]: [unknown[]] = await manager.query(
        `UPDATE spreadsheet_import
            SET status = $3, error = $4, finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
          WHERE id = $1 AND lease_owner = $2 AND status = 'running'
          RETURNING id`,
        [id, owner, status, error],
      );
      if (rows.length > 0) {
        await manager.query('DELETE FROM spreadsheet_import_file_part WHERE import_id = $1', [id]);
      }
    });
  }

  /**
   * The erasure's part of the spreadsheet imports of `campaignIds`, in the caller's transaction
   * (docs/privacy.md#erasure): every import that still holds its stored file (`uploaded` or
   * `running`: a finished import's file is deleted when it ends) is cancelled and its file
   * deleted, since the file's cells cannot be searched for a person (an xlsx is zipped); the
   * sample rows of those and of any import whose sample rows name the person (digits of a cell
   * run, or the email) are emptied.
   * @param nationalDigits the phone's national digits, or null; @param email lower-cased, or null.
   * @returns the imports changed.
   */
  async erasePerson(
    manager: EntityManager,
    campaignIds: number[],
    nationalDigits: string | null,
    email: string | null,
  ): Promise<string[]> {
    const [rows]: [Array<{ id: string }>] = await manager.query(
      `UPDATE spreadsheet_import
          SET sample_rows = '[]'::jsonb,
              status = CASE WHEN status IN ('uploaded', 'running') THEN 'cancelled' ELSE status END,
              finished_at = CASE WHEN status IN ('uploaded', 'running') THEN now() ELSE finished_at END,
              lease_owner = NULL, lease_expires_at = NULL
        WHERE campaign_id = ANY($1::int[])
          AND (status IN ('uploaded', 'running')
               OR ($2::text IS NOT NULL
                   AND strpos(regexp_replace(sample_rows::text, '[^0-9]', '', 'g'), $2) > 0)
               OR ($3::text IS NOT NULL AND strpos(lower(sample_rows::text), $3) > 0))
       RETURNING id`,
      [campaignIds, nationalDigits, email],
    );
    const ids = rows.map((row) => row.id);
    if (ids.length > 0) {
      await manager.query(
        'DELETE FROM spreadsheet_import_file_part WHERE import_id = ANY($1::uuid[])',
        [ids],
      );
    }
    return ids;
  }

  private select(
    where: string,
    params: unknown[],
    columns = COLUMNS,
  ): Promise<SpreadsheetImportRow[]> {
    return this.dataSource.query(
      `SELECT ${columns}
         FROM spreadsheet_import s
         JOIN campaign c ON c.id = s.campaign_id
         JOIN dashboard_user u ON u.id = s.user_id
        WHERE ${where}`,
      params,
    );
  }
}
