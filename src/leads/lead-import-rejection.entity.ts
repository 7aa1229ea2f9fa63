import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { LeadImport } from './lead-import.entity';

/**
 * One rejected row of an import (docs/dashboard.md#imports): the lead's 0-based `row` in the
 * upload, the first failing field and its message (as in the 202's `errors`), and the lead's
 * fields as submitted. Written in the import's transaction; removed with the retention of
 * delivery attempts (docs/operations.md#retention).
 */
@Entity({ name: 'lead_import_rejection' })
/** Retention deletes expired rows by age. */
@Index('idx_lead_import_rejection_created_at', ['createdAt'])
export class LeadImportRejection {
  @PrimaryColumn({
    name: 'import_id',
    type: 'uuid',
    primaryKeyConstraintName: 'PK_lead_import_rejection',
  })
  importId!: string;

  @ManyToOne(() => LeadImport, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'import_id', foreignKeyConstraintName: 'fk_lead_import_rejection_import' })
  leadImport?: LeadImport;

  /** The lead's 0-based index in the upload's `leads`. */
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'PK_lead_import_rejection' })
  row!: number;

  @Column({ type: 'varchar', length: 32 })
  field!: string;

  @Column({ type: 'varchar', length: 200 })
  message!: string;

  /**
   * The lead's fields as submitted (`phone`, `first_name`, `last_name`, `email`, `company`,
   * `title`; other keys are dropped, as on upload), each string cut to 1,000 characters.
   */
  @Column({ type: 'jsonb' })
  submitted!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
