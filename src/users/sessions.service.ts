import { Injectable, Logger } from '@nestjs/common';
import { isIP } from 'node:net';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLog, type DashboardUserActor } from '../audit';
import { Clock } from '../common/clock';
import {
  csrfTokenFor,
  csrfTokenMatches,
  generateSessionToken,
  hashSessionToken,
  isSessionTokenShaped,
  SESSION_MAX_LIFETIME_MS,
  SESSION_TOUCH_INTERVAL_MS,
  sessionTimeState,
  shouldTouch,
} from './session-tokens';
import { SessionsRepository, type SessionEndReason } from './sessions.repository';
import type { SessionUser } from './users.service';

/**
 * How long an address a user signed in from stays known for the sign-in limits: 30 days
 * (docs/security.md#sign-in-guessing).
 */
export const KNOWN_ADDRESS_MS = 30 * 24 * 60 * 60 * 1000;

/** A valid session, as {@link SessionsService.resolve} finds it. */
export interface ResolvedSession {
  sessionId: number;
  /** The CSRF token state-changing requests must carry (docs/dashboard.md#cross-site-request-forgery). */
  csrfToken: string;
  user: SessionUser;
}

/** A session just started: the token goes into the cookie, and is never available again. */
export interface StartedSession {
  sessionId: number;
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/**
 * Dashboard sessions (docs/dashboard.md#sessions): a random 256-bit token per sign-in, stored
 * only as its SHA-256; valid until 30 minutes without a request or 12 hours after sign-in,
 * whichever comes first, or until ended (sign-out, a new sign-in from the same browser, the
 * user disabled or their password reset). `last_seen_at` is written at most once a minute.
 * Times come from the injectable {@link Clock}. A sign-in and a sign-out are recorded in the
 * audit log in their own transaction (docs/architecture.md#who-writes-the-audit-log).
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Whether `presented` is the CSRF token of the session whose token is `sessionToken`,
   * compared in constant time (docs/dashboard.md#cross-site-request-forgery). Pure; no query.
   */
  csrfTokenMatches(sessionToken: string, presented: string | undefined): boolean {
    return csrfTokenMatches(sessionToken, presented);
  }

  /**
   * Starts a session of `user`, signed in from `ip` (the client IP), recorded as
   * `session.sign_in` by the user, on the new session, in the same transaction.
   */
  async start(user: SessionUser, ip: string): Promise<StartedSession> {
    const token = generateSessionToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_MAX_LIFETIME_MS);
    const sessionId = await this.dataSource.transaction(async (manager) => {
      const id = await this.sessions.insert(
        {
          tokenHash: hashSessionToken(token),
          userId: user.id,
          at: now,
          expiresAt,
          ip: isIP(ip) !== 0 ? ip : null,
        },
        manager,
      );
      await this.recordSession(manager, user, ip, 'session.sign_in', id);
      return id;
    });
    return { sessionId, token, csrfToken: csrfTokenFor(token), expiresAt };
  }

  /**
   * Signs out: ends `session` (if still open) and records `session.sign_out` by its user from
   * `ip`, in one transaction.
   */
  async signOut(
    session: { token: string; sessionId: number; user: SessionUser },
    ip: string,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.end(session.token, 'sign_out', manager);
      await this.recordSession(manager, session.user, ip, 'session.sign_out', session.sessionId);
    });
  }

  /** Records a sign-in or sign-out of session `sessionId` by `user` from `ip`. */
  private async recordSession(
    manager: EntityManager,
    user: SessionUser,
    ip: string,
    action: 'session.sign_in' | 'session.sign_out',
    sessionId: number,
  ): Promise<void> {
    const actor: DashboardUserActor = {
      type: 'user',
      accountId: user.accountId,
      userId: user.id,
      email: user.email,
      ip,
    };
    await this.audit.recordChange(
      actor,
      { accountId: user.accountId, action, objectType: 'session', objectId: sessionId },
      manager,
    );
  }

  /**
   * Whether the user with `email` (any case, surrounding spaces ignored) signed in from `ip`
   * within {@link KNOWN_ADDRESS_MS} with their current password: the sign-in limits let such
   * an address through once the email's own limit is reached
   * (docs/security.md#sign-in-guessing). False for an unknown email or a value that is not an
   * IP address.
   */
  async signedInRecentlyFrom(email: string, ip: string): Promise<boolean> {
    if (isIP(ip) === 0) return false;
    const since = new Date(this.clock.now().getTime() - KNOWN_ADDRESS_MS);
    return this.sessions.signedInFrom(email.trim(), ip, since);
  }

  /**
   * The session of `token` if it is valid now; records the request (`last_seen_at`, at most
   * once a minute). A session found expired or idle is ended on the way.
   * @returns null for a malformed, unknown, ended, expired or idle token, a disabled user, or
   *   a session older than its user's last password change.
   */
  async resolve(token: string | undefined): Promise<ResolvedSession | null> {
    if (token === undefined || !isSessionTokenShaped(token)) return null;
    const session = await this.sessions.findWithUser(hashSessionToken(token));
    if (!session || session.endedAt !== null) return null;
    const now = this.clock.now();
    const state = sessionTimeState(session, now);
    if (state !== 'active') {
      await this.sessions.end(session.id, now, state);
      return null;
    }
    if (session.disabledAt !== null || session.createdAt < session.passwordChangedAt) return null;
    if (shouldTouch(session.lastSeenAt, now)) {
      const notAfter = new Date(now.getTime() - SESSION_TOUCH_INTERVAL_MS);
      // Off the response path: a lost touch only makes the session look idle a minute early.
      this.sessions
        .touch(session.id, now, notAfter)
        .catch((error: Error) =>
          this.logger.warn(`Could not record use of session ${session.id}: ${error.message}`),
        );
    }
    return {
      sessionId: session.id,
      csrfToken: csrfTokenFor(token),
      user: {
        id: session.userId,
        accountId: session.accountId,
        email: session.email,
        role: session.role,
      },
    };
  }

  /**
   * Ends the session of `token` if it is open (sign-out, or replaced by a new sign-in), in the
   * caller's transaction when `manager` is given.
   * @returns whether an open session ended.
   */
  async end(
    token: string | undefined,
    reason: SessionEndReason = 'sign_out',
    manager?: EntityManager,
  ): Promise<boolean> {
    if (token === undefined || !isSessionTokenShaped(token)) return false;
    const session = await this.sessions.findWithUser(hashSessionToken(token));
    if (!session || session.endedAt !== null) return false;
    await this.sessions.end(session.id, this.clock.now(), reason, manager);
    return true;
  }
}
