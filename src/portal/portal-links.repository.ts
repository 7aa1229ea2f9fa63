import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { DashboardRole } from '../users';
import { PortalLink } from './portal-link.entity';
import type { PortalPage, PortalTheme } from './portal-request';

/** A link to insert. */
export interface NewPortalLink {
  accountId: number;
  keyPrefix: string | null;
  secretHash: string;
  role: DashboardRole;
  campaignIds: number[] | null;
  subjectId: string;
  subjectName: string | null;
  subjectEmail: string | null;
  pages: PortalPage[];
  theme: PortalTheme;
  parentOrigin: string;
  createdAt: Date;
  expiresAt: Date;
}

/** What a portal session may do: its link's scope and state. */
export interface PortalLinkRow {
  id: string;
  accountId: number;
  keyPrefix: string | null;
  role: DashboardRole;
  campaignIds: number[] | null;
  subjectId: string;
  pages: PortalPage[];
  theme: PortalTheme;
  parentOrigin: string;
  expiresAt: Date;
  revokedAt: Date | null;
}

const COLUMNS = `id, account_id, key_prefix, role, campaign_ids, subject_id, pages, theme,
                 parent_origin, expires_at, revoked_at`;

function toRow(row: Record<string, unknown>): PortalLinkRow {
  return {
    id: row.id as string,
    accountId: row.account_id as number,
    keyPrefix: row.key_prefix as string | null,
    role: row.role as DashboardRole,
    campaignIds: row.campaign_ids as number[] | null,
    subjectId: row.subject_id as string,
    pages: row.pages as PortalPage[],
    theme: row.theme as PortalTheme,
    parentOrigin: row.parent_origin as string,
    expiresAt: row.expires_at as Date,
    revokedAt: row.revoked_at as Date | null,
  };
}

/**
 * Every query on `portal_link` (docs/architecture.md#modules-and-tables). Times come from the
 * caller (the injectable clock), never from the database's `now()`.
 */
@Injectable()
export class PortalLinksRepository {
  constructor(@InjectRepository(PortalLink) private readonly links: Repository<PortalLink>) {}

  /** Inserts a link with a new random id, in the caller's transaction. @returns its id (a UUID). */
  async insert(link: NewPortalLink, manager: EntityManager): Promise<string> {
    const [row]: Array<{ id: string }> = await manager.query(
      `INSERT INTO portal_link (account_id, key_prefix, secret_hash, role, campaign_ids, subject_id,
                                subject_name, subject_email, pages, theme, parent_origin,
                                created_at, expires_at, id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`,
      [
        link.accountId,
        link.keyPrefix,
        link.secretHash,
        link.role,
        link.campaignIds,
        link.subjectId,
        link.subjectName,
        link.subjectEmail,
        link.pages,
        JSON.stringify(link.theme),
        link.parentOrigin,
        link.createdAt,
        link.expiresAt,
        randomUUID(),
      ],
    );
    return row.id;
  }

  /**
   * The one exchange of link `id`: checks its secret and marks it used, storing the embedded
   * session's token hash, in one statement (docs/security.md#embedded-portal), so that of two
   * exchanges at once only one succeeds.
   * @returns the link, or null when it is unknown, used, revoked, expired at `at`, or the secret
   *   is not its.
   */
  async exchange(
    id: string,
    secretHash: string,
    sessionTokenHash: string,
    at: Date,
    manager: EntityManager,
  ): Promise<PortalLinkRow | null> {
    const [rows]: [Array<Record<string, unknown>>, number] = await manager.query(
      `UPDATE portal_link SET used_at = $4, session_token_hash = $3
        WHERE id = $1 AND secret_hash = $2 AND used_at IS NULL AND revoked_at IS NULL
          AND expires_at > $4
        RETURNING ${COLUMNS}`,
      [id, secretHash, sessionTokenHash, at],
    );
    return rows.length > 0 ? toRow(rows[0]) : null;
  }

  /** The link whose embedded session's token hashes to `tokenHash` (one indexed read), or null. */
  async findBySessionTokenHash(tokenHash: string): Promise<PortalLinkRow | null> {
    const rows: Array<Record<string, unknown>> = await this.links.query(
      `SELECT ${COLUMNS} FROM portal_link WHERE session_token_hash = $1`,
      [tokenHash],
    );
    return rows.length > 0 ? toRow(rows[0]) : null;
  }

  /** Link `id` (served or not), or null. */
  async find(id: string): Promise<PortalLinkRow | null> {
    const rows: Array<Record<string, unknown>> = await this.links.query(
      `SELECT ${COLUMNS} FROM portal_link WHERE id = $1`,
      [id],
    );
    return rows.length > 0 ? toRow(rows[0]) : null;
  }

  /**
   * Revokes link `id` of `accountId` (any account when null) at `at`, in the caller's
   * transaction.
   * @returns `revoked` when it was open, `already` when it was revoked before, null when there
   *   is no such link (of that account).
   */
  async revoke(
    id: string,
    accountId: number | null,
    at: Date,
    manager: EntityManager,
  ): Promise<{ accountId: number; state: 'revoked' | 'already' } | null> {
    const rows: Array<{ account_id: number; revoked_at: Date | null }> = await manager.query(
      `SELECT account_id, revoked_at FROM portal_link
        WHERE id = $1 AND ($2::int IS NULL OR account_id = $2) FOR UPDATE`,
      [id, accountId],
    );
    if (rows.length === 0) return null;
    if (rows[0].revoked_at !== null) return { accountId: rows[0].account_id, state: 'already' };
    await manager.query(`UPDATE portal_link SET revoked_at = $2 WHERE id = $1`, [id, at]);
    return { accountId: rows[0].account_id, state: 'revoked' };
  }
}
