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
import { LeadImport } from './lead-import.entity';
import { bigintToNumber } from '../database/transformers';

/**
 * A stored lead (contact) of a campaign. `phone` is E.164 and unique per campaign: the
 * constraint, not a check-then-insert, decides duplicates (docs/api.md#duplicates-and-counts).
 *
 * The dashboard's lead search (docs/dashboard.md#leads) reads three expression indexes that
 * TypeORM cannot describe (created by the `LeadSearch` migration, hence `synchronize: false`):
 * `(campaign_id, lower(email) COLLATE "C", id)` and the lower-cased name, first then last and
 * last then first, likewise. A phone search is an exact match on `uq_lead_campaign_id_phone`.
 */
@Entity({ name: 'lead' })
@Unique('uq_lead_campaign_id_phone', ['campaignId', 'phone'])
@Index('idx_lead_search_email', { synchronize: false })
@Index('idx_lead_search_name', { synchronize: false })
@Index('idx_lead_search_name_reversed', { synchronize: false })
export class Lead {
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintToNumber })
  id!: number;

  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

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

  /**
   * The import that created the lead, by (`import_id`, `campaign_id`): one foreign key checks
   * both that the import exists and that the lead is in the import's campaign (and so that
   * the campaign exists: the import references it). One check per inserted lead instead of
   * two, a third of a 10,000-lead insert's time (docs/architecture.md#modules-and-tables).
   */
  @ManyToOne(() => LeadImport, { onDelete: 'RESTRICT' })
  @JoinColumn([
    {
      name: 'import_id',
      referencedColumnName: 'id',
      foreignKeyConstraintName: 'fk_lead_lead_import',
    },
    {
      name: 'campaign_id',
      referencedColumnName: 'campaignId',
      foreignKeyConstraintName: 'fk_lead_lead_import',
    },
  ])
  leadImport?: LeadImport;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
