import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import type { Campaign } from '../campaigns';
import type { DashboardUser } from '../users';

/** A spreadsheet import's life (docs/dashboard.md#spreadsheet-imports). */
export const SPREADSHEET_IMPORT_STATUSES = [
  'uploaded',
  'running',
  'done',
  'cancelled',
  'failed',
] as const;
export type SpreadsheetImportStatus = (typeof SPREADSHEET_IMPORT_STATUSES)[number];

/** The file formats a spreadsheet import reads. */
export type SpreadsheetFormat = 'csv' | 'xlsx';

/**
 * Which column of the file feeds which lead field: a 0-based column index per field; `phone`
 * is required, the others optional.
 */
export type ColumnMapping = Partial<Record<string, number>>;

/**
 * One spreadsheet import (docs/dashboard.md#spreadsheet-imports): the uploaded file's facts
 * (its bytes are in `spreadsheet_import_file_part`), then, once started, the column mapping
 * and the compliance record every chunk's `lead_import` copies, and the progress the runner
 * commits with each chunk (`rows_read`, `next_chunk`, the counts). A worker holds a lease
 * (`lease_owner`, `lease_expires_at`) while it runs the job; a job whose lease ran out is
 * taken up by any worker, where the last committed chunk left it.
 */
@Entity({ name: 'spreadsheet_import' })
@Index('idx_spreadsheet_import_campaign_created', ['campaignId', 'createdAt'])
@Index('idx_spreadsheet_import_running', ['createdAt'], { where: `status = 'running'` })
@Index('idx_spreadsheet_import_uploaded', ['createdAt'], { where: `status = 'uploaded'` })
@Check(
  'chk_spreadsheet_import_status',
  `"status" IN ('uploaded', 'running', 'done', 'cancelled', 'failed')`,
)
@Check('chk_spreadsheet_import_format', `"format" IN ('csv', 'xlsx')`)
export class SpreadsheetImport {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_spreadsheet_import' })
  id!: string;

  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

  @ManyToOne('Campaign', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_spreadsheet_import_campaign' })
  campaign?: Campaign;

  @Column({ name: 'user_id', type: 'integer' })
  userId!: number;

  @ManyToOne('DashboardUser', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_spreadsheet_import_user' })
  user?: DashboardUser;

  @Column({ name: 'file_name', type: 'varchar', length: 255 })
  fileName!: string;

  @Column({ type: 'varchar', length: 8 })
  format!: SpreadsheetFormat;

  /** bigint: node-postgres reads it as a string. */
  @Column({ name: 'size_bytes', type: 'bigint' })
  sizeBytes!: string;

  @Column({ name: 'part_count', type: 'integer' })
  partCount!: number;

  /** The header row's cells, as text. */
  @Column({ type: 'jsonb' })
  headers!: string[];

  /** The first data rows (at most `SAMPLE_ROWS`), as text cells. */
  @Column({ name: 'sample_rows', type: 'jsonb' })
  sampleRows!: string[][];

  /**
   * The mapping the header row suggests (lead field → 0-based column), worked out once at
   * upload (docs/dashboard.md#column-mapping).
   */
  @Column({ name: 'suggested_mapping', type: 'jsonb', default: () => `'{}'` })
  suggestedMapping!: ColumnMapping;

  /** Data rows in the file (the header not counted). */
  @Column({ name: 'total_rows', type: 'integer' })
  totalRows!: number;

  @Column({ type: 'varchar', length: 16 })
  status!: SpreadsheetImportStatus;

  @Column({ type: 'jsonb', nullable: true })
  mapping!: ColumnMapping | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  source!: string | null;

  @Column({ type: 'text', array: true, nullable: true })
  tags!: string[] | null;

  @Column({ name: 'skip_duplicates', type: 'boolean', nullable: true })
  skipDuplicates!: boolean | null;

  @Column({ name: 'disclaimer_version', type: 'varchar', length: 32, nullable: true })
  disclaimerVersion!: string | null;

  @Column({ name: 'compliance_acknowledged_at', type: 'timestamptz', nullable: true })
  complianceAcknowledgedAt!: Date | null;

  @Column({ name: 'client_ip', type: 'varchar', length: 64, nullable: true })
  clientIp!: string | null;

  /** Data rows read and imported so far (committed with each chunk). */
  @Column({ name: 'rows_read', type: 'integer', default: 0 })
  rowsRead!: number;

  /** The index of the next chunk to import. */
  @Column({ name: 'next_chunk', type: 'integer', default: 0 })
  nextChunk!: number;

  @Column({ name: 'valid_count', type: 'integer', default: 0 })
  validCount!: number;

  @Column({ name: 'invalid_count', type: 'integer', default: 0 })
  invalidCount!: number;

  @Column({ name: 'duplicate_count', type: 'integer', default: 0 })
  duplicateCount!: number;

  /** Why the job failed (status `failed`). */
  @Column({ type: 'varchar', length: 500, nullable: true })
  error!: string | null;

  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner!: string | null;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}

/** One part (at most 1 MiB) of an uploaded file, in order (`part` from 0). */
@Entity({ name: 'spreadsheet_import_file_part' })
export class SpreadsheetImportFilePart {
  @PrimaryColumn({
    name: 'import_id',
    type: 'uuid',
    primaryKeyConstraintName: 'PK_spreadsheet_import_file_part',
  })
  importId!: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'PK_spreadsheet_import_file_part' })
  part!: number;

  @ManyToOne(() => SpreadsheetImport, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'import_id',
    foreignKeyConstraintName: 'fk_spreadsheet_import_file_part_import',
  })
  spreadsheetImport?: SpreadsheetImport;

  @Column({ type: 'bytea' })
  data!: Buffer;
}
