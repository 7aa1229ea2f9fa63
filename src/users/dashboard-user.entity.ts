import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { Account } from '../campaigns';
import type { DashboardRole } from './dashboard-roles.constants';

/**
 * A person who signs in to the dashboard (docs/dashboard.md#users-and-roles): one account, one
 * role. Emails are unique whatever their case (the unique index on `lower(email)`, created by
 * the migration: TypeORM cannot describe an expression index, hence `synchronize: false`).
 * The password is stored only as an argon2id hash. Users are disabled, never deleted.
 */
@Entity({ name: 'dashboard_user' })
@Index('uq_dashboard_user_email_lower', { synchronize: false })
@Check('chk_dashboard_user_role', `"role" IN ('admin', 'viewer')`)
export class DashboardUser {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Index('idx_dashboard_user_account_id')
  @Column({ name: 'account_id', type: 'integer' })
  accountId!: number;

  @ManyToOne('Account', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_dashboard_user_account' })
  account?: Account;

  /** As given (trimmed); compared case-insensitively. */
  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'text' })
  role!: DashboardRole;

  /** PHC string of the argon2id hash (`$argon2id$v=19$m=…`). */
  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  /** When the password was last set; sessions started before it are not valid. */
  @Column({ name: 'password_changed_at', type: 'timestamptz' })
  passwordChangedAt!: Date;
}
