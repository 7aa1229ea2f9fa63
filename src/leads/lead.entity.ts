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
import { LeadImport } from './lead-import.entity';
import { bigintToNumber } from '../database/transformers';

/**
 * A stored lead (contact) of a campaign. `phone` is E.164 and unique per campaign: the
 * constraint, not a check-then-insert, decides duplicates (docs/api.md#duplicates-and-counts).
 */
@Entity({ name: 'lead' })
@Unique('uq_lead_campaign_id_phone', ['campaignId', 'phone'])
export class Lead {
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintToNumber })
  id!: number;

  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

  @ManyToOne(() => Campaign, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_lead_campaign' })
  campaign?: Campaign;

  /** E.164, e.g. `+14155552671`. */
  @Column({ type: 'varchar', length: 16 })
  phone!: string;

  @Column({ name: 'first_name', type: 'varchar', length: 255, nullable: true })
  firstName!: string | null;

  @Column({ name: 'last_name', type: 'varchar', length: 255, nullable: true })
  lastName!: string | null;

  @Column({ type: 'varchar', length: 320, nullable: true })
  email!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  company!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  title!: string | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];

  @Column({ type: 'varchar', length: 100 })
  source!: string;

  @Index('idx_lead_import_id')
  @Column({ name: 'import_id', type: 'uuid' })
  importId!: string;

  @ManyToOne(() => LeadImport, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'import_id', foreignKeyConstraintName: 'fk_lead_import' })
  leadImport?: LeadImport;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
