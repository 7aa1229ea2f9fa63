import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Unique,
} from 'typeorm';
import type { Campaign } from '../campaigns';
import type { ApiKey } from '../auth';
import type { DashboardUser } from '../users';
import { SpreadsheetImport } from './spreadsheet-import.entity';

/**
 * The compliance record of one upload (docs/api.md#duplicates-and-counts): who uploaded (an API
 * key, or a dashboard user for a chunk of a spreadsheet import,
 * docs/dashboard.md#spreadsheet-imports), into which
 * campaign, when the compliance disclaimer (which version) was acknowledged, from which client
 * IP, and the counts of the response. Written for every accepted upload, even one with no
 * valid lead, in the same transaction as its leads.
 */
@Entity({ name: 'lead_import' })
@Index('idx_lead_import_campaign_id_created_at', ['campaignId', 'createdAt'])
@Unique('uq_lead_import_id_campaign_id', ['id', 'campaignId'])
@Index('uq_lead_import_spreadsheet_chunk', ['spreadsheetImportId', 'chunkIndex'], { unique: true })
@Check('chk_lead_import_uploader', `"api_key_id" IS NOT NULL OR "user_id" IS NOT NULL`)
export class LeadImport {
  /** The `import_id` of the 202 response (UUID). */
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

  @ManyToOne('Campaign', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_lead_import_campaign' })
  campaign?: Campaign;

  @Index('idx_lead_import_api_key_id')
  @Column({ name: 'api_key_id', type: 'integer', nullable: true })
  apiKeyId!: number | null;

  @ManyToOne('ApiKey', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'api_key_id', foreignKeyConstraintName: 'fk_lead_import_api_key' })
  apiKey?: ApiKey;

  /** The dashboard user who imported a spreadsheet (null for an upload with an API key). */
  @Index('idx_lead_import_user_id')
  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId!: number | null;

  @ManyToOne('DashboardUser', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_lead_import_user' })
  user?: DashboardUser;

  /** The spreadsheet import this import is a chunk of (null for an API upload). */
  @Column({ name: 'spreadsheet_import_id', type: 'uuid', nullable: true })
  spreadsheetImportId!: string | null;

  @ManyToOne(() => SpreadsheetImport, { onDelete: 'SET NULL' })
  @JoinColumn({
    name: 'spreadsheet_import_id',
    foreignKeyConstraintName: 'fk_lead_import_spreadsheet_import',
  })
  spreadsheetImport?: SpreadsheetImport;

  /** The chunk's 0-based index in its spreadsheet import. */
  @Column({ name: 'chunk_index', type: 'integer', nullable: true })
  chunkIndex!: number | null;

  /** The file row of the chunk's first lead (the header is row 1). */
  @Column({ name: 'first_row', type: 'integer', nullable: true })
  firstRow!: number | null;

  @Column({ type: 'varchar', length: 100 })
  source!: string;

  @Column({ type: 'text', array: true })
  tags!: string[];

  @Column({ name: 'disclaimer_version', type: 'varchar', length: 32 })
  disclaimerVersion!: string;

  @Column({ name: 'compliance_acknowledged_at', type: 'timestamptz' })
  complianceAcknowledgedAt!: Date;

  @Column({ name: 'client_ip', type: 'varchar', length: 64, nullable: true })
  clientIp!: string | null;

  @Column({ name: 'received_count', type: 'integer' })
  receivedCount!: number;

  @Column({ name: 'valid_count', type: 'integer' })
  validCount!: number;

  @Column({ name: 'invalid_count', type: 'integer' })
  invalidCount!: number;

  @Column({ name: 'duplicate_count', type: 'integer' })
  duplicateCount!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
