import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/transformers';
import { DashboardUser } from './dashboard-user.entity';

/**
 * A dashboard sign-in (docs/dashboard.md#sessions). The session id is a random 256-bit token
 * kept by the browser in the `campaign_api_session` cookie; only its SHA-256 is stored. The
 * CSRF token is derived from the token ({@link csrfTokenFor}), so nothing about it is stored.
 * A session ends at `expires_at` (12 hours after sign-in), after 30 minutes without a request
 * (`last_seen_at`, written at most once a minute), at sign-out, and when its user is disabled or
 * their password reset; `ended_at` and `end_reason` record how.
 */
@Entity({ name: 'dashboard_session' })
export class DashboardSession {
  @PrimaryColumn({
    type: 'bigint',
    generated: 'identity',
    generatedIdentity: 'ALWAYS',
    transformer: bigintToNumber,
  })
  id!: number;

  /** Lower-case hex SHA-256 of the session token. */
  @Index('uq_dashboard_session_token_hash', { unique: true })
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash!: string;

  @Index('idx_dashboard_session_user_id')
  @Column({ name: 'user_id', type: 'integer' })
  userId!: number;

  @ManyToOne(() => DashboardUser, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_dashboard_session_user' })
  user?: DashboardUser;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt!: Date;

  /** The absolute end: `created_at` + 12 hours. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  /** `sign_out`, `replaced`, `idle`, `expired`, `disabled`, `password_reset`; null while open. */
  @Column({ name: 'end_reason', type: 'text', nullable: true })
  endReason!: string | null;

  /** The client IP at sign-in. */
  @Column({ type: 'inet', nullable: true })
  ip!: string | null;
}
