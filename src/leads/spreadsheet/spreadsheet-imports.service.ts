import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLog, type AuditActor } from '../../audit/audit-log.service';
import { CampaignsService } from '../../campaigns/campaigns.service';
import { InvalidInputError, NotFoundError, StateConflictError } from '../../common/domain-error';
import { rejectionsCsv, type ImportRejection } from '../import-rejections';
import { newLeads } from '../lead-batch';
import { validateLead, type LeadField, type NormalizedLead } from '../lead-validator';
import { checkMapping, leadOfRow } from './column-mapping';
import type {
  ColumnMapping,
  SpreadsheetFormat,
  SpreadsheetImportStatus,
} from './spreadsheet-import.entity';
import { FILE_PART_BYTES, storeFileParts } from './spreadsheet-files';
import { SpreadsheetFileReader } from './spreadsheet-file-reader';
import { SPREADSHEET_MAX_BYTES, UPLOAD_PARSE_BUDGET } from './spreadsheet-limits';
import { detectFormat, readFileHead } from './spreadsheet-reader';
import { FileTooLargeError, SpreadsheetTempFiles } from './spreadsheet-temp-files';
import { UploadCapacity } from './upload-capacity';

export { SPREADSHEET_MAX_BYTES } from './spreadsheet-limits';
/** How many of a campaign's spreadsheet imports the list answers. */
export const SPREADSHEET_LIST_LIMIT = 20;

/** A spreadsheet import as the dashboard shows it (docs/dashboard.md#spreadsheet-imports). */
export interface SpreadsheetImportView {
  id: string;
  campaign_id: number;
  user: { id: number; email: string };
  file_name: string;
  format: SpreadsheetFormat;
  size_bytes: number;
  /** Non-blank data rows in the file (the header row not counted). */
  total_rows: number;
  headers: string[];
  sample_rows: string[][];
  /** The mapping the headers suggest (lead field → 0-based column). */
  suggested_mapping: ColumnMapping;
  status: SpreadsheetImportStatus;
  /** Once started: the mapping, the compliance record and the options every chunk shares. */
  mapping: ColumnMapping | null;
  source: string | null;
  tags: string[] | null;
  skip_duplicates: boolean | null;
  disclaimer_version: string | null;
  compliance_acknowledged_at: Date | null;
  /** Data rows imported so far, and chunks (each a `lead_import`). */
  rows_read: number;
  chunks_imported: number;
  /** Of the rows read: valid (new and duplicates skipped), rejected, duplicates skipped. */
  valid_count: number;
  invalid_count: number;
  duplicate_count: number;
  /** New leads stored: `rows_read = new_count + duplicate_count + invalid_count`. */
  new_count: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** The preview of one sample row under a mapping: the lead as it would be stored, or its first problem. */
export interface PreviewRow {
  row: number;
  lead: NormalizedLead | null;
  error: { field: LeadField; message: string } | null;
}

/** What starting an import takes besides the mapping (docs/dashboard.md#spreadsheet-imports). */
export interface StartOptions {
  mapping: unknown;
  source: string;
  tags: string[];
  skipDuplicates: boolean;
  disclaimerVersion: string;
  clientIp: string | null;
}

const COLUMNS = `s.id, s.campaign_id, s.user_id, u.email AS user_email, s.file_name, s.format,
  s.size_bytes, s.total_rows, s.headers, s.sample_rows, s.suggested_mapping, s.status, s.mapping, s.source, s.tags,
  s.skip_duplicates, s.disclaimer_version, s.compliance_acknowledged_at, s.rows_read, s.next_chunk,
  s.valid_count, s.invalid_count, s.duplicate_count, s.error, s.created_at, s.started_at,
  s.finished_at`;

function view(row: Record<string, unknown>): SpreadsheetImportView {
  const headers = row.headers as string[];
  return {
    id: row.id as string,
    campaign_id: row.campaign_id as number,
    user: { id: row.user_id as number, email: row.user_email as string },
    file_name: row.file_name as string,
    format: row.format as SpreadsheetFormat,
    size_bytes: Number(row.size_bytes),
    total_rows: row.total_rows as number,
    headers,
    sample_rows: row.sample_rows as string[][],
    suggested_mapping: row.suggested_mapping as ColumnMapping,
    status: row.status as SpreadsheetImportStatus,
    mapping: row.mapping as ColumnMapping | null,
    source: row.source as string | null,
    tags: row.tags as string[] | null,
    skip_duplicates: row.skip_duplicates as boolean | null,
    disclaimer_version: row.disclaimer_version as string | null,
    compliance_acknowledged_at: row.compliance_acknowledged_at as Date | null,
    rows_read: row.rows_read as number,
    chunks_imported: row.next_chunk as number,
    valid_count: row.valid_count as number,
    invalid_count: row.invalid_count as number,
    duplicate_count: row.duplicate_count as number,
    new_count: newLeads(row.valid_count as number, row.duplicate_count as number),
    error: row.error as string | null,
    created_at: row.created_at as Date,
    started_at: row.started_at as Date | null,
    finished_at: row.finished_at as Date | null,
  };
}

/** A file name as kept: its last path segment, well-formed, at most 255 characters. */
function cleanFileName(name: unknown): string {
  const text = typeof name === 'string' ? name : '';
  const base = text.split(/[\\/]/).pop() ?? '';
  const clean = base
    .toWellFormed()
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (clean === '' ? 'spreadsheet' : clean).slice(0, 255);
}

/**
 * Spreadsheet imports from the dashboard (docs/dashboard.md#spreadsheet-imports): upload (the
 * file stored in parts and read once to find its header, sample rows and row count), preview
 * under a column mapping, start, cancel, list, and the rejected rows of all its chunks. The
 * import itself is `SpreadsheetImportRunner`'s, in the worker. Every id is scoped to the
 * caller's account: another account's campaign or import is "not found".
 */
@Injectable()
export class SpreadsheetImports {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly campaigns: CampaignsService,
    private readonly capacity: UploadCapacity,
    private readonly tempFiles: SpreadsheetTempFiles,
    private readonly reader: SpreadsheetFileReader,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Checks the campaign is the account's.
   * @throws NotFoundError otherwise.
   */
  requireCampaign(accountId: number, campaignId: number): Promise<void> {
    return this.campaigns.requireOfAccount(accountId, campaignId);
  }

  /**
   * Receives an uploaded file and keeps it (docs/security.md#spreadsheet-uploads): the body is
   * written to a local file as it arrives (no database connection is held meanwhile), read
   * through in a parse thread within the reading bounds, and only then stored in PostgreSQL,
   * in one transaction that waits on nothing but the local file. Nothing is kept unless the
   * whole file arrived and reads as CSV or XLSX with a header row and at least one data row;
   * the local file is removed on every path.
   * @param body the request body, streamed.
   * @param declaredBytes the request's `Content-Length`, or null without one.
   * @returns the new import, `uploaded`, with its headers, sample rows and suggested mapping.
   * @throws NotFoundError for a campaign not of the account; UploadCapacityError when the
   *   account or the process has its most uploads in progress; FileTooLargeError over
   *   {@link SPREADSHEET_MAX_BYTES}; InvalidInputError (field `file`) for an empty, unreadable
   *   or header-only file, or one past a reading bound.
   */
  async upload(
    accountId: number,
    campaignId: number,
    userId: number,
    fileName: unknown,
    body: AsyncIterable<Buffer>,
    declaredBytes: number | null = null,
  ): Promise<SpreadsheetImportView> {
    await this.campaigns.requireOfAccount(accountId, campaignId);
    if (declaredBytes !== null && declaredBytes > SPREADSHEET_MAX_BYTES) {
      throw new FileTooLargeError(SPREADSHEET_MAX_BYTES);
    }
    const release = this.capacity.reserve(accountId, declaredBytes);
    let path: string | null = null;
    try {
      const received = await this.tempFiles.receive(body, SPREADSHEET_MAX_BYTES);
      path = received.path;
      if (received.sizeBytes === 0) throw InvalidInputError.field('file', 'is empty');
      const name = cleanFileName(fileName);
      const format = detectFormat(name, await readFileHead(path, 16));
      const scan = await this.reader.scan(path, format, { budget: UPLOAD_PARSE_BUDGET });
      if (scan.totalRows === 0) {
        throw InvalidInputError.field('file', 'has a header row but no data rows');
      }
      const id = randomUUID();
      const file = path;
      await this.dataSource.transaction(async (manager) => {
        await manager.query(
          `INSERT INTO spreadsheet_import (id, campaign_id, user_id, file_name, format, size_bytes,
             part_count, headers, sample_rows, suggested_mapping, total_rows, status)
           VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, $9, $10, 'uploaded')`,
          [
            id,
            campaignId,
            userId,
            name,
            format,
            received.sizeBytes,
            JSON.stringify(scan.headers),
            JSON.stringify(scan.sample),
            JSON.stringify(scan.suggestedMapping),
            scan.totalRows,
          ],
        );
        const { partCount } = await storeFileParts(
          manager,
          id,
          createReadStream(file, { highWaterMark: FILE_PART_BYTES }),
          SPREADSHEET_MAX_BYTES,
        );
        await manager.query('UPDATE spreadsheet_import SET part_count = $2 WHERE id = $1', [
          id,
          partCount,
        ]);
      });
      return await this.get(accountId, id);
    } finally {
      release();
      if (path !== null) await this.tempFiles.remove(path);
    }
  }

  /**
   * One import of the account.
   * @throws NotFoundError for an unknown import or another account's.
   */
  async get(accountId: number, id: string): Promise<SpreadsheetImportView> {
    const [row] = await this.select('s.id = $1 AND c.account_id = $2', [id, accountId]);
    if (!row) throw new NotFoundError(`spreadsheet import ${id} does not exist`);
    return row;
  }

  /**
   * A campaign's last {@link SPREADSHEET_LIST_LIMIT} spreadsheet imports, newest first.
   * @throws NotFoundError for a campaign not of the account.
   */
  async list(accountId: number, campaignId: number): Promise<SpreadsheetImportView[]> {
    await this.campaigns.requireOfAccount(accountId, campaignId);
    return this.select(
      `s.campaign_id = $1 AND c.account_id = $2 ORDER BY s.created_at DESC, s.id DESC LIMIT ${SPREADSHEET_LIST_LIMIT}`,
      [campaignId, accountId],
    );
  }

  /**
   * The sample rows under `mapping`, each validated by the upload's rules in the campaign's
   * region: the lead as it would be stored, or its first problem. Duplicates are not
   * looked for.
   * @throws NotFoundError; InvalidInputError (field `mapping`) for a bad mapping.
   */
  async preview(accountId: number, id: string, mapping: unknown): Promise<PreviewRow[]> {
    const job = await this.get(accountId, id);
    const checked = checkMapping(mapping, job.headers.length);
    const scope = await this.campaigns.requireScopeOfAccount(accountId, job.campaign_id);
    // The sample's rows are the first data rows; their file numbers are not kept, so the
    // preview numbers them from 2 (the header is row 1), as a file without blank rows would.
    return job.sample_rows.map((cells, i) => {
      const check = validateLead(leadOfRow(cells, checked), scope.defaultRegion);
      return check.ok
        ? { row: i + 2, lead: check.lead, error: null }
        : {
            row: i + 2,
            lead: null,
            error: { field: check.problem.var_field, message: check.problem.message },
          };
    });
  }

  /**
   * Starts an `uploaded` import with a mapping and its compliance record (acknowledged now):
   * the worker takes it within a second. Recorded as `import.start` on the campaign
   * (`{spreadsheet_import_id, file_name, total_rows, disclaimer_version}`) when this call
   * started it and an `actor` is given, right after the start commits.
   * @returns the import and whether this call started it; an import already started (two
   *   clicks) is returned as it is, `started` false.
   * @throws NotFoundError; InvalidInputError (field `mapping`) for a bad mapping;
   *   StateConflictError when the import was cancelled or failed.
   */
  async start(
    accountId: number,
    id: string,
    options: StartOptions,
    actor?: AuditActor,
  ): Promise<{ job: SpreadsheetImportView; started: boolean }> {
    const job = await this.get(accountId, id);
    const mapping = checkMapping(options.mapping, job.headers.length);
    if (job.status !== 'uploaded') {
      if (job.status === 'running' || job.status === 'done') return { job, started: false };
      throw new StateConflictError(`the import is ${job.status}: upload the file again`);
    }
    const updated: unknown[] = await this.dataSource.query(
      `UPDATE spreadsheet_import
          SET status = 'running', mapping = $2, source = $3, tags = $4, skip_duplicates = $5,
              disclaimer_version = $6, compliance_acknowledged_at = now(), client_ip = $7,
              started_at = now()
        WHERE id = $1 AND status = 'uploaded'
        RETURNING id`,
      [
        id,
        JSON.stringify(mapping),
        options.source,
        options.tags,
        options.skipDuplicates,
        options.disclaimerVersion,
        options.clientIp,
      ],
    );
    const [rows] = updated as [unknown[]];
    if (rows.length > 0) {
      await this.audit.recordChange(actor, {
        accountId,
        action: 'import.start',
        objectType: 'campaign',
        objectId: job.campaign_id,
        details: {
          spreadsheet_import_id: job.id,
          file_name: job.file_name,
          total_rows: job.total_rows,
          disclaimer_version: options.disclaimerVersion,
        },
      });
    }
    return { job: await this.get(accountId, id), started: rows.length > 0 };
  }

  /**
   * Cancels an import that is `uploaded` or `running`: the chunk under way is rolled back,
   * those committed stay (their leads are in the campaign). The stored file is deleted. When
   * this call cancelled it and an `actor` is given, recorded as `import.cancel` on the campaign
   * (`{spreadsheet_import_id, rows_read, total_rows}`) in the same transaction.
   * @returns the import and whether this call cancelled it (false once it had ended).
   * @throws NotFoundError.
   */
  async cancel(
    accountId: number,
    id: string,
    actor?: AuditActor,
  ): Promise<{ job: SpreadsheetImportView; cancelled: boolean }> {
    const job = await this.get(accountId, id);
    const cancelled = await this.dataSource.transaction(async (manager) => {
      const [rows]: [unknown[]] = await manager.query(
        `UPDATE spreadsheet_import
            SET status = 'cancelled', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
          WHERE id = $1 AND status IN ('uploaded', 'running')
          RETURNING id`,
        [id],
      );
      if (rows.length > 0) {
        await manager.query('DELETE FROM spreadsheet_import_file_part WHERE import_id = $1', [id]);
        if (actor) await this.recordCancel(manager, actor, accountId, job);
      }
      return rows.length > 0;
    });
    return { job: await this.get(accountId, id), cancelled };
  }

  /**
   * The rejected rows of every chunk of the import, as CSV pages (header first), by file row;
   * each cell neutralised against formula injection.
   * @throws NotFoundError.
   */
  async *rejectionsCsv(accountId: number, id: string): AsyncGenerator<string> {
    await this.get(accountId, id);
    yield rejectionsCsv([], true);
    // Chunk by chunk, in file order; within a chunk by row, through its primary key.
    const chunks: Array<{ id: string }> = await this.dataSource.query(
      'SELECT id FROM lead_import WHERE spreadsheet_import_id = $1 ORDER BY chunk_index',
      [id],
    );
    for (const chunk of chunks) {
      let after = -1;
      for (;;) {
        const rows: ImportRejection[] = await this.dataSource.query(
          `SELECT row, field, message, submitted FROM lead_import_rejection
            WHERE import_id = $1 AND row > $2 ORDER BY row LIMIT 1000`,
          [chunk.id, after],
        );
        if (rows.length === 0) break;
        yield rejectionsCsv(rows, false);
        after = rows[rows.length - 1].row;
      }
    }
  }

  /** Records the cancel of `job` in `manager`'s transaction, with its rows read as of now. */
  private async recordCancel(
    manager: EntityManager,
    actor: AuditActor,
    accountId: number,
    job: SpreadsheetImportView,
  ): Promise<void> {
    const [{ rows_read }]: Array<{ rows_read: number }> = await manager.query(
      'SELECT rows_read FROM spreadsheet_import WHERE id = $1',
      [job.id],
    );
    await this.audit.recordChange(
      actor,
      {
        accountId,
        action: 'import.cancel',
        objectType: 'campaign',
        objectId: job.campaign_id,
        details: { spreadsheet_import_id: job.id, rows_read, total_rows: job.total_rows },
      },
      manager,
    );
  }

  private async select(where: string, params: unknown[]): Promise<SpreadsheetImportView[]> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT ${COLUMNS}
         FROM spreadsheet_import s
         JOIN campaign c ON c.id = s.campaign_id
         JOIN dashboard_user u ON u.id = s.user_id
        WHERE ${where}`,
      params,
    );
    return rows.map(view);
  }
}
