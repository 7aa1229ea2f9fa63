import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/transformers';

/**
 * Who made a change: a dashboard user, an operator through the CLI, the service itself
 * (`system`: an endpoint disabled because it answered 410 Gone, docs/webhooks.md#disabled-endpoints),
 * a portal session (`portal`, docs/dashboard.md#embedding-the-portal) or an API key (`api_key`:
 * a portal link minted or revoked).
 */
export type AuditActorType = 'user' | 'cli' | 'system' | 'portal' | 'api_key';

/**
 * One entry of the audit log (docs/dashboard.md#audit-log): a sign-in (succeeded or failed) or
 * a change made through the dashboard or the CLI. Never holds a secret, key or password.
 * `account_id` is null only for a failed sign-in with an email no user has. Entries are only
 * ever inserted.
 */
@Entity({ name: 'audit_log_entry' })
@Index('idx_audit_log_entry_account_created', ['accountId', 'createdAt', 'id'])
// The audit log's filters by action and by user (docs/dashboard.md#audit-log); the user's is on
// the lower-cased email, an expression TypeORM cannot describe (created by the `AuditLogFilters`
// migration, hence `synchronize: false`).
@Index('idx_audit_log_entry_account_action', ['accountId', 'action', 'createdAt', 'id'])
@Index('idx_audit_log_entry_account_email', { synchronize: false })
@Check(
  'chk_audit_log_entry_actor_type',
  `"actor_type" IN ('user', 'cli', 'system', 'portal', 'api_key')`,
)
export class AuditLogEntry {
  @PrimaryColumn({
    type: 'bigint',
    generated: 'identity',
    generatedIdentity: 'ALWAYS',
    transformer: bigintToNumber,
  })
  id!: number;

  @Column({ name: 'account_id', type: 'integer', nullable: true })
  accountId!: number | null;

  /**
   * The foreign key to `account`, named by the entity's name rather than imported: the audit
   * module sits below `campaigns` (which records its changes here) and imports no feature
   * (docs/architecture.md#layering-rules). The relation is never loaded.
   */
  @ManyToOne('Account', { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_audit_log_entry_account' })
  account?: unknown;

  @Column({ name: 'actor_type', type: 'text' })
  actorType!: AuditActorType;

  /** The dashboard user, when known (not for a failed sign-in). */
  @Column({ name: 'actor_user_id', type: 'integer', nullable: true })
  actorUserId!: number | null;

  /** The user's email, or the email attempted by a failed sign-in. */
  @Column({ name: 'actor_email', type: 'text', nullable: true })
  actorEmail!: string | null;

  /** A portal session's actor, `portal:<subject id>` (the platform's own user); else null. */
  @Column({ name: 'actor_label', type: 'text', nullable: true })
  actorLabel!: string | null;

  /** The prefix of the API key that minted the portal link, or that made the change; else null. */
  @Column({ name: 'actor_key_prefix', type: 'varchar', length: 16, nullable: true })
  actorKeyPrefix!: string | null;

  /** The client IP; null for the CLI. */
  @Column({ type: 'inet', nullable: true })
  ip!: string | null;

  /** `session.sign_in`, `endpoint.create`, `secret.reveal`, … ({@link AUDIT_ACTIONS}). */
  @Column({ type: 'text' })
  action!: string;

  @Column({ name: 'object_type', type: 'text', nullable: true })
  objectType!: string | null;

  @Column({ name: 'object_id', type: 'text', nullable: true })
  objectId!: string | null;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  details!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
