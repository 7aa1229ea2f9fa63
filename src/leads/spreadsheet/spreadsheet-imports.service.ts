import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { CountryCode } from 'libphonenumber-js/max';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLog, type AuditActor } from '../../audit';
import { AppConfig } from '../../config/app-config';
import { CampaignsService } from '../../campaigns';
import { InvalidInputError, NotFoundError, StateConflictError } from '../../common/domain-error';
import { ownedThrough, type Owned } from '../../common/owned-id';
import { LeadImports, newLeads, rejectionsCsv, type ImportRejection } from '../history';
import { validateLead, type LeadField, type NormalizedLead } from '../upload';
import { checkMapping, leadOfRow, noPhoneColumn } from './column-mapping';
import type { ColumnMapping, SpreadsheetFormat, SpreadsheetImportStatus } from '..';
import { FILE_PART_BYTES, readFileParts, storeFileParts } from './spreadsheet-files';
import {
  SpreadsheetImportsRepository,
  type ChunkProgress,
  type ClaimedImport,
  type SpreadsheetImportRow,
} from './spreadsheet-imports.repository';
import {
  SpreadsheetFileReader,
  type LeadBatch,
  type ReadOptions,
} from './spreadsheet-file-reader.service';
import { SPREADSHEET_MAX_BYTES, UPLOAD_PARSE_BUDGET } from './spreadsheet-limits';
import { detectFormat, readFileHead } from './spreadsheet-reader';
import { FileTooLargeError, SpreadsheetTempFiles } from './spreadsheet-temp-files.service';
import { UploadCapacity } from './upload-capacity.service';

export { SPREADSHEET_MAX_BYTES } from './spreadsheet-limits';
/** How many of a campaign's spreadsheet imports the list answers. */
export const SPREADSHEET_LIST_LIMIT = 20;

/**
 * A spreadsheet import as the dashboard's list shows it (docs/dashboard.md#spreadsheet-imports):
 * everything but the file's header row, sample rows and suggested mapping, which only the
 * import's own read answers, so that an item stays small whatever the file's headers.
 */
export interface SpreadsheetImportSummary {
  id: string;
  campaign_id: number;
  user: { id: number; email: string };
  file_name: string;
  format: SpreadsheetFormat;
  size_bytes: number;
  /** Non-blank data rows in the file (the header row not counted). */
  total_rows: number;
  status: SpreadsheetImportStatus;
  /**
   * While `uploaded`: when the upload is discarded with its file unless it is started
   * (docs/dashboard.md#abandoned-uploads); null once started.
   */
  discard_at: Date | null;
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

/** One spreadsheet import as its own page shows it: a list item with the file's header and sample rows. */
export interface SpreadsheetImportView extends SpreadsheetImportSummary {
  headers: string[];
  sample_rows: string[][];
  /** The mapping the headers suggest (lead field → 0-based column). */
  suggested_mapping: ColumnMapping;
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

/** The rejected rows read per query by {@link SpreadsheetImports.rejectionsCsv}. */
const REJECTIONS_PAGE = 1000;

/** A list item of a row read without its heavy columns; `ttlMs` dates the discard of an upload. */
function summary(row: SpreadsheetImportRow, ttlMs: number): SpreadsheetImportSummary {
  const createdAt = row.created_at as Date;
  const status = row.status as SpreadsheetImportStatus;
  return {
    id: row.id as string,
    campaign_id: row.campaign_id as number,
    user: { id: row.user_id as number, email: row.user_email as string },
    file_name: row.file_name as string,
    format: row.format as SpreadsheetFormat,
    size_bytes: Number(row.size_bytes),
    total_rows: row.total_rows as number,
    status,
    discard_at: status === 'uploaded' ? new Date(createdAt.getTime() + ttlMs) : null,
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
    created_at: createdAt,
    started_at: row.started_at as Date | null,
    finished_at: row.finished_at as Date | null,
  };
}

/** One import of a row read whole. */
function view(row: SpreadsheetImportRow, ttlMs: number): SpreadsheetImportView {
  return {
    ...summary(row, ttlMs),
    headers: row.headers as string[],
    sample_rows: row.sample_rows as string[][],
    suggested_mapping: row.suggested_mapping as ColumnMapping,
  };
}

/**
 * Whether a cell of the sample rows reads as a phone number in `region`: a file whose headers
 * name no phone column may still hold one under another name, for the admin to map.
 */
function holdsPhoneNumbers(sample: readonly string[][], region: CountryCode): boolean {
  return sample.some((cells) =>
    cells.some((cell) => cell !== '' && validateLead({ phone: cell }, region).ok),
  );
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
 * import itself is `SpreadsheetImportRunner`'s, in the worker, which reaches the owned tables
 * (`spreadsheet_import`, `spreadsheet_import_file_part`) and this process's spreadsheet files
 * through the worker's methods below (claim, advance, finish, …). Every id the dashboard names
 * is owned (`Owned<kind>`): the resource guard checked its account
 * (docs/architecture.md#account-access); one that vanished since is "not found".
 */
@Injectable()
export class SpreadsheetImports {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: SpreadsheetImportsRepository,
    private readonly campaigns: CampaignsService,
    private readonly capacity: UploadCapacity,
    private readonly tempFiles: SpreadsheetTempFiles,
    private readonly reader: SpreadsheetFileReader,
    private readonly audit: AuditLog,
    private readonly leadImports: LeadImports,
    private readonly config: AppConfig,
  ) {}

  /**
   * Receives an uploaded file and keeps it (docs/security.md#spreadsheet-uploads): the body is
   * written to a local file as it arrives (no database connection is held meanwhile), read
   * through in a parse thread within the reading bounds, and only then stored in PostgreSQL,
   * in one transaction that waits on nothing but the local file. Nothing is kept unless the
   * whole file arrived and reads as CSV or XLSX with a header row and at least one data row;
   * the local file is removed on every path.
   * @param accountId the uploader's account, for its bound on uploads in progress.
   * @param campaignId the campaign, owned: the dashboard's resource guard checked its account
   *   (docs/architecture.md#account-access).
   * @param body the request body, streamed.
   * @param declaredBytes the request's `Content-Length`, or null without one.
   * @returns the new import, `uploaded`, with its headers, sample rows and suggested mapping.
   * @throws NotFoundError for a campaign that no longer exists; UploadCapacityError when the
   *   account or the process has its most uploads in progress; FileTooLargeError over
   *   {@link SPREADSHEET_MAX_BYTES}; InvalidInputError (field `file`) for an empty, unreadable
   *   or header-only file, or one past a reading bound.
   */
  async upload(
    accountId: number,
    campaignId: Owned<'campaign'>,
    userId: number,
    fileName: unknown,
    body: AsyncIterable<Buffer>,
    declaredBytes: number | null = null,
  ): Promise<SpreadsheetImportView> {
    const scope = await this.campaigns.scopeOf(campaignId);
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
      if (
        scan.suggestedMapping.phone === undefined &&
        !holdsPhoneNumbers(scan.sample, scope.defaultRegion)
      ) {
        throw InvalidInputError.field('file', noPhoneColumn(scan.headers));
      }
      const id = randomUUID();
      const file = path;
      await this.dataSource.transaction(async (manager) => {
        await this.repository.insertUploaded(manager, {
          id,
          campaignId,
          userId,
          fileName: name,
          format,
          sizeBytes: received.sizeBytes,
          headers: scan.headers,
          sampleRows: scan.sample,
          suggestedMapping: scan.suggestedMapping,
          totalRows: scan.totalRows,
        });
        const { partCount } = await storeFileParts(
          createReadStream(file, { highWaterMark: FILE_PART_BYTES }),
          SPREADSHEET_MAX_BYTES,
          (part, data) => this.repository.insertFilePart(manager, id, part, data),
        );
        await this.repository.setPartCount(manager, id, partCount);
      });
      return await this.get(ownedThrough(campaignId, 'spreadsheet-import', id));
    } finally {
      release();
      if (path !== null) await this.tempFiles.remove(path);
    }
  }

  /**
   * One import. Its id is owned: the dashboard's resource guard checked its account
   * (docs/architecture.md#account-access).
   * @throws NotFoundError for an import that no longer exists.
   */
  async get(id: Owned<'spreadsheet-import'>): Promise<SpreadsheetImportView> {
    const row = await this.repository.findById(id);
    if (!row) throw new NotFoundError(`spreadsheet import ${id} does not exist`);
    return view(row, this.config.spreadsheetUploadTtlMs);
  }

  /**
   * A campaign's last {@link SPREADSHEET_LIST_LIMIT} spreadsheet imports, newest first.
   * @throws NotFoundError for a campaign that no longer exists.
   */
  async list(campaignId: Owned<'campaign'>): Promise<SpreadsheetImportSummary[]> {
    await this.campaigns.scopeOf(campaignId);
    const rows = await this.repository.listOfCampaign(campaignId, SPREADSHEET_LIST_LIMIT);
    return rows.map((row) => summary(row, this.config.spreadsheetUploadTtlMs));
  }

  /**
   * The sample rows under `mapping`, each validated by the upload's rules in the campaign's
   * region: the lead as it would be stored, or its first problem. Duplicates are not
   * looked for.
   * @throws NotFoundError; InvalidInputError (field `mapping`) for a bad mapping.
   */
  async preview(id: Owned<'spreadsheet-import'>, mapping: unknown): Promise<PreviewRow[]> {
    const job = await this.get(id);
    const checked = checkMapping(mapping, job.headers.length);
    const scope = await this.campaigns.scopeOf(ownedThrough(id, 'campaign', job.campaign_id));
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
   * started it and an `actor` is given, in the start's transaction.
   * @returns the import and whether this call started it; an import already started (two
   *   clicks) is returned as it is, `started` false.
   * @throws NotFoundError; InvalidInputError (field `mapping`) for a bad mapping;
   *   StateConflictError when the import was cancelled or failed.
   */
  async start(
    id: Owned<'spreadsheet-import'>,
    options: StartOptions,
    actor?: AuditActor,
  ): Promise<{ job: SpreadsheetImportView; started: boolean }> {
    const job = await this.get(id);
    const accountId = await this.entryAccount(actor, job.campaign_id);
    const mapping = checkMapping(options.mapping, job.headers.length);
    if (job.status !== 'uploaded') {
      if (job.status === 'running' || job.status === 'done') return { job, started: false };
      throw new StateConflictError(`the import is ${job.status}: upload the file again`);
    }
    const started = await this.repository.start(
      id,
      {
        mapping,
        source: options.source,
        tags: options.tags,
        skipDuplicates: options.skipDuplicates,
        disclaimerVersion: options.disclaimerVersion,
        clientIp: options.clientIp,
      },
      actor &&
        ((manager) =>
          this.audit
            .recordChange(
              actor,
              {
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
              },
              manager,
            )
            .then(() => undefined)),
    );
    return { job: await this.get(id), started };
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
    id: Owned<'spreadsheet-import'>,
    actor?: AuditActor,
  ): Promise<{ job: SpreadsheetImportView; cancelled: boolean }> {
    const job = await this.get(id);
    const accountId = await this.entryAccount(actor, job.campaign_id);
    const cancelled = await this.repository.cancel(
      id,
      actor &&
        ((manager, rowsRead) =>
          this.audit
            .recordChange(
              actor,
              {
                accountId,
                action: 'import.cancel',
                objectType: 'campaign',
                objectId: job.campaign_id,
                details: {
                  spreadsheet_import_id: job.id,
                  rows_read: rowsRead,
                  total_rows: job.total_rows,
                },
              },
              manager,
            )
            .then(() => undefined)),
    );
    return { job: await this.get(id), cancelled };
  }

  /**
   * An erasure's part of the spreadsheet imports of `campaignIds`, in the caller's transaction
   * (docs/privacy.md#erasure): cancels every import that still holds its stored file and deletes
   * the file, and empties the sample rows of those and of any import whose sample names the
   * person. A worker running one of them stops at its next chunk (the import is no longer
   * `running`) and removes its local copy.
   * @param nationalDigits the phone's national digits, or null; @param email lower-cased, or null.
   * @returns how many imports were changed.
   */
  async erasePerson(
    manager: EntityManager,
    campaignIds: number[],
    nationalDigits: string | null,
    email: string | null,
  ): Promise<number> {
    const ids = await this.repository.erasePerson(manager, campaignIds, nationalDigits, email);
    return ids.length;
  }

  /**
   * Discards an upload that was never started (docs/dashboard.md#abandoned-uploads): the import
   * and its stored file are deleted, recorded as `import.discard` on the campaign
   * (`{spreadsheet_import_id, file_name, total_rows}`) in the same transaction.
   * @throws NotFoundError; StateConflictError once the import was started, cancelled or ended
   *   (a running import is cancelled instead).
   */
  async discard(id: Owned<'spreadsheet-import'>, actor: AuditActor): Promise<void> {
    const job = await this.get(id);
    if (job.status !== 'uploaded') {
      throw new StateConflictError(
        `the import is ${job.status}: only an upload waiting for its mapping can be discarded${job.status === 'running' ? ' (cancel a running import)' : ''}`,
      );
    }
    const accountId = await this.entryAccount(actor, job.campaign_id);
    const discarded = await this.repository.discard(id, (manager) =>
      this.audit
        .recordChange(
          actor,
          {
            accountId,
            action: 'import.discard',
            objectType: 'campaign',
            objectId: job.campaign_id,
            details: {
              spreadsheet_import_id: job.id,
              file_name: job.file_name,
              total_rows: job.total_rows,
            },
          },
          manager,
        )
        .then(() => undefined),
    );
    // Started (or discarded) by another request between the read and the delete.
    if (!discarded) return this.discard(id, actor);
  }

  /**
   * The rejected rows of every chunk of the import, as CSV pages (header first), by file row;
   * each cell neutralised against formula injection.
   * @param shown each rejected row as the reader may see it (a viewer's contact details
   *   masked: docs/privacy.md#contact-details-by-role); unchanged when not given.
   * @throws NotFoundError.
   */
  async *rejectionsCsv(
    id: Owned<'spreadsheet-import'>,
    shown: (row: ImportRejection) => ImportRejection = (row) => row,
  ): AsyncGenerator<string> {
    await this.get(id);
    yield rejectionsCsv([], true);
    // Chunk by chunk, in file order; within a chunk by row, through its primary key.
    for (const chunkId of await this.leadImports.chunksOfSpreadsheetImport(id)) {
      let after = -1;
      for (;;) {
        const rows = await this.leadImports.rejectionsAfter(chunkId, after, REJECTIONS_PAGE);
        if (rows.length === 0) break;
        yield rejectionsCsv(rows.map(shown), false);
        after = rows[rows.length - 1].row;
      }
    }
  }

  // The worker's side (`SpreadsheetImportRunner`, docs/dashboard.md#spreadsheet-imports):
  // leases, progress and the stored file, on this module's tables and files.

  /**
   * Deletes the uploads never started within `SPREADSHEET_UPLOAD_TTL`
   * (docs/dashboard.md#abandoned-uploads), with their stored files.
   * @returns how many were deleted.
   */
  discardAbandoned(): Promise<number> {
    return this.repository.deleteUnstartedOlderThan(this.config.spreadsheetUploadTtlMs);
  }

  /**
   * Takes the oldest `running` import whose lease is free or ran out, leasing it to `owner`
   * for `leaseMs` (`FOR UPDATE SKIP LOCKED`: one worker per import).
   * @returns the import, or null when none is ready.
   */
  claim(owner: string, leaseMs: number): Promise<ClaimedImport | null> {
    return this.repository.claim(owner, leaseMs);
  }

  /**
   * Copies a claimed import's stored file to a local file of this process (the caller removes
   * it with {@link removeLocalFile}), part by part, with no size bound (it was bounded on upload).
   * @returns the local file's path and size in bytes.
   * @throws Error when a part is missing (the import was cancelled meanwhile); the local file
   *   is then removed.
   */
  copyStoredFile(job: ClaimedImport): Promise<{ path: string; sizeBytes: number }> {
    return this.tempFiles.receive(
      readFileParts(
        (part, offset) => this.repository.filePartSlice(job.id, part, offset),
        job.id,
        job.part_count,
      ),
      Number.POSITIVE_INFINITY,
      'import',
    );
  }

  /**
   * A local file's leads under `mapping`, in a parse thread within `options.budget`
   * (docs/security.md#spreadsheet-uploads), in batches, after the first `skipRows` data rows.
   */
  readLeads(
    path: string,
    format: SpreadsheetFormat,
    mapping: ColumnMapping,
    skipRows: number,
    options: ReadOptions,
  ): AsyncIterable<LeadBatch> {
    return this.reader.leads(path, format, mapping, skipRows, options);
  }

  /** Removes a local file made by {@link copyStoredFile}; never throws. */
  removeLocalFile(path: string): Promise<void> {
    return this.tempFiles.remove(path);
  }

  /**
   * Adds a committed chunk's counts to the import and renews the lease for `leaseMs`, in the
   * chunk's transaction, if the import is still `running`, `owner`'s, and at that chunk.
   * @returns whether it was (false: the caller rolls the chunk back).
   */
  advance(
    manager: EntityManager,
    id: string,
    owner: string,
    chunk: ChunkProgress,
    leaseMs: number,
  ): Promise<boolean> {
    return this.repository.advance(manager, id, owner, chunk, leaseMs);
  }

  /** Frees `owner`'s lease on the import, so another worker may take it at once. */
  releaseLease(id: string, owner: string): Promise<void> {
    return this.repository.releaseLease(id, owner);
  }

  /**
   * Ends the import with `status` and `error` if it is still `running` and `owner`'s (its lease
   * dropped), and then deletes its stored file, in one transaction.
   */
  finish(
    id: string,
    owner: string,
    status: 'done' | 'failed',
    error: string | null,
  ): Promise<void> {
    return this.repository.finish(id, owner, status, error);
  }

  /** The account an entry of `actor` belongs to: the user's, or for the CLI the campaign's. */
  private async entryAccount(
    actor: AuditActor | undefined,
    campaignId: number,
  ): Promise<number | null> {
    if (!actor) return null;
    return actor.type === 'user' ? actor.accountId : this.campaigns.accountOf(campaignId);
  }
}
