import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { Account } from '../campaigns';
import type { DashboardRole } from '../users';
import type { PortalPage, PortalTheme } from './portal-request';

/**
 * One portal link (docs/dashboard.md#embedding-the-portal, docs/security.md#embedded-portal),
 * minted by an API key (`key_prefix`) or the CLI (null) for one of the platform's own users
 * (`subject_*`). Its secret is stored only as its SHA-256; `used_at` is set by the one exchange,
 * which also stores the SHA-256 of the embedded session's token. `revoked_at` ends the link and
 * its session at once; `expires_at` bounds both. `campaign_ids` null: every campaign of the
 * account (the minting key had them all and the request named none).
 */
@Entity({ name: 'portal_link' })
@Check('chk_portal_link_role', `"role" IN ('admin', 'viewer')`)
export class PortalLink {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Index('idx_portal_link_account_id')
  @Column({ name: 'account_id', type: 'integer' })
  accountId!: number;

  @ManyToOne('Account', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_portal_link_account' })
  account?: Account;

  /** The minting API key's prefix; null when the CLI minted the link. */
  @Column({ name: 'key_prefix', type: 'varchar', length: 16, nullable: true })
  keyPrefix!: string | null;

  /** Lower-case hex SHA-256 of the link's secret. */
  @Column({ name: 'secret_hash', type: 'char', length: 64 })
  secretHash!: string;

  /** Lower-case hex SHA-256 of the embedded session's token; null until the exchange. */
  @Index('uq_portal_link_session_token_hash', { unique: true })
  @Column({ name: 'session_token_hash', type: 'char', length: 64, nullable: true })
  sessionTokenHash!: string | null;

  @Column({ type: 'text' })
  role!: DashboardRole;

  @Column({ name: 'campaign_ids', type: 'integer', array: true, nullable: true })
  campaignIds!: number[] | null;

  @Column({ name: 'subject_id', type: 'varchar', length: 200 })
  subjectId!: string;

  @Column({ name: 'subject_name', type: 'varchar', length: 200, nullable: true })
  subjectName!: string | null;

  @Column({ name: 'subject_email', type: 'varchar', length: 320, nullable: true })
  subjectEmail!: string | null;

  @Column({ type: 'text', array: true })
  pages!: PortalPage[];

  @Column({ type: 'jsonb', default: () => `'{}'` })
  theme!: PortalTheme;

  /** The one origin allowed to frame this link's portal and receive its messages. */
  @Column({ name: 'parent_origin', type: 'text' })
  parentOrigin!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
