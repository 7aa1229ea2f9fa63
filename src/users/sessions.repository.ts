import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { DashboardSession } from './dashboard-session.entity';
import type { DashboardRole } from './dashboard-roles.constants';

/** How a session ended (`dashboard_session.end_reason`). */
export type SessionEndReason =
  'sign_out' | 'replaced' | 'idle' | 'expired' | 'disabled' | 'password_reset';

/** A session with what its validity depends on of its user (one query). */
export interface SessionWithUser {
  id: number;
  userId: number;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
  accountId: number;
  email: string;
  role: DashboardRole;
  disabledAt: Date | null;
  passwordChangedAt: Date;
}

/**
 * Every query on `dashboard_session` (docs/architecture.md#modules-and-tables). Times come from
 * the caller (the injectable clock), never from the database's `now()`, so that the session
 * rules of docs/dashboard.md#sessions can be tested without waiting.
 */
@Injectable()
export class SessionsRepository {
  constructor(
    @InjectRepository(DashboardSession) private readonly sessions: Repository<DashboardSession>,
  ) {}

  /** Inserts an open session, in the caller's transaction when `manager` is given. @returns its id. */
  async insert(
    fields: {
      tokenHash: string;
      userId: number;
      at: Date;
      expiresAt: Date;
      ip: string | null;
    },
    manager: EntityManager = this.sessions.manager,
  ): Promise<number> {
    const [row]: Array<{ id: string }> = await manager.query(
      `INSERT INTO dashboard_session (token_hash, user_id, created_at, last_seen_at, expires_at, ip)
       VALUES ($1, $2, $3, $3, $4, $5) RETURNING id`,
      [fields.tokenHash, fields.userId, fields.at, fields.expiresAt, fields.ip],
    );
    return Number(row.id);
  }

  /** The session whose token hashes to `tokenHash`, with its user, or null. */
  async findWithUser(tokenHash: string): Promise<SessionWithUser | null> {
    const rows: Array<Record<string, unknown>> = await this.sessions.query(
      `SELECT s.id, s.user_id, s.created_at, s.last_seen_at, s.expires_at, s.ended_at,
              u.account_id, u.email, u.role, u.disabled_at, u.password_changed_at
         FROM dashboard_session s JOIN dashboard_user u ON u.id = s.user_id
        WHERE s.token_hash = $1`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: Number(row.id),
      userId: row.user_id as number,
      createdAt: row.created_at as Date,
      lastSeenAt: row.last_seen_at as Date,
      expiresAt: row.expires_at as Date,
      endedAt: row.ended_at as Date | null,
      accountId: row.account_id as number,
      email: row.email as string,
      role: row.role as DashboardRole,
      disabledAt: row.disabled_at as Date | null,
      passwordChangedAt: row.password_changed_at as Date,
    };
  }

  /**
   * Whether the user whose email equals `email` (any case) started a session from `ip` at
   * `since` or later, and after their password last changed (signed in with the current one).
   * One query, the same whether a user has the email or not.
   */
  async signedInFrom(email: string, ip: string, since: Date): Promise<boolean> {
    const [row]: Array<{ known: boolean }> = await this.sessions.query(
      `SELECT EXISTS (
         SELECT 1 FROM dashboard_user u JOIN dashboard_session s ON s.user_id = u.id
          WHERE lower(u.email) = lower($1) AND s.ip = $2::inet
            AND s.created_at >= $3 AND s.created_at >= u.password_changed_at
       ) AS known`,
      [email, ip, since],
    );
    return row.known;
  }

  /** Sets `last_seen_at` to `at` unless it is at `notAfter` or later (another request wrote it). */
  async touch(id: number, at: Date, notAfter: Date): Promise<void> {
    await this.sessions.query(
      `UPDATE dashboard_session SET last_seen_at = $2
        WHERE id = $1 AND ended_at IS NULL AND last_seen_at < $3`,
      [id, at, notAfter],
    );
  }

  /**
   * Ends session `id` at `at` unless it has ended already, in the caller's transaction when
   * `manager` is given.
   */
  async end(
    id: number,
    at: Date,
    reason: SessionEndReason,
    manager: EntityManager = this.sessions.manager,
  ): Promise<void> {
    await manager.query(
      `UPDATE dashboard_session SET ended_at = $2, end_reason = $3
        WHERE id = $1 AND ended_at IS NULL`,
      [id, at, reason],
    );
  }

  /** Ends every open session of `userId`, in the caller's transaction. @returns how many. */
  async endAllFor(
    manager: EntityManager,
    userId: number,
    at: Date,
    reason: SessionEndReason,
  ): Promise<number> {
    const [, count]: [unknown, number] = await manager.query(
      `UPDATE dashboard_session SET ended_at = $2, end_reason = $3
        WHERE user_id = $1 AND ended_at IS NULL`,
      [userId, at, reason],
    );
    return count;
  }
}
