import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Account } from './account.entity';

/**
 * A campaign of an account: the unit leads are uploaded into and webhook endpoints belong to.
 * `defaultRegion` (ISO 3166-1 alpha-2) is how phones without `+` are read (docs/api.md#per-lead-validation).
 */
@Entity({ name: 'campaign' })
export class Campaign {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Index('idx_campaign_account_id')
  @Column({ name: 'account_id', type: 'integer' })
  accountId!: number;

  @ManyToOne(() => Account, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_campaign_account' })
  account?: Account;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ name: 'default_region', type: 'varchar', length: 2, default: 'US' })
  defaultRegion!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
