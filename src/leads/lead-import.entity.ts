import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Unique,
} from 'typeorm';
import { Campaign } from '../campaigns/campaign.entity';
import { ApiKey } from '../auth/api-key.entity';

/**
 * The compliance record of one upload (docs/api.md#duplicates-and-counts): who uploaded (API key), into which
 * campaign, when the compliance disclaimer (which version) was acknowledged, from which client
 * IP, and the counts of the response. Written for every accepted upload, even one with no
 * valid lead, in the same transaction as its leads.
 */
@Entity({ name: 'lead_import' })
@Index('idx_lead_import_campaign_id_created_at', ['campaignId', 'createdAt'])
@Unique('uq_lead_import_id_campaign_id', ['id', 'campaignId'])
export class LeadImport {
  /** The `import_id` of the 202 response (UUID). */
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

  @ManyToOne(() => Campaign, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_lead_import_campaign' })
  campaign?: Campaign;

  @Index('idx_lead_import_api_key_id')
  @Column({ name: 'api_key_id', type: 'integer' })
  apiKeyId!: number;

  @ManyToOne(() => ApiKey, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'api_key_id', foreignKeyConstraintName: 'fk_lead_import_api_key' })
  apiKey?: ApiKey;

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
