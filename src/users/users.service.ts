import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLog, type AuditActor } from '../audit';
import { Clock } from '../common/clock';
import { AlreadyExistsError, InvalidInputError, NotFoundError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';
import { CampaignsService } from '../campaigns';
import type { DashboardUser } from './dashboard-user.entity';
import { DASHBOARD_ROLES, isDashboardRole, type DashboardRole } from './dashboard-roles.constants';
import {
  dummyPasswordHash,
  generatePassword,
  hashPassword,
  validatePassword,
  verifyPassword,
} from './passwords';
import { SessionsRepository } from './sessions.repository';
import { MAX_PASSWORD_LENGTH } from './user-limits.constants';
import { normaliseEmail } from './user-email';
import { UsersRepository } from './users.repository';

/** A dashboard user as operators see it (docs/cli.md#commands): never the password or its hash. */
export interface DashboardUserView {
  id: number;
  account_id: number;
  email: string;
  role: DashboardRole;
  created_at: Date;
  disabled_at: Date | null;
  password_changed_at: Date;
}

/** Who is signed in: what a session carries of its user. */
export interface SessionUser {
  id: number;
  accountId: number;
  email: string;
  role: DashboardRole;
}

/** Why a sign-in was refused (kept in the audit log; the client always gets the same 401). */
export type SignInFailure = 'unknown_email' | 'wrong_password' | 'disabled';

/** The result of {@link UsersService.verifyCredentials}. */
export type CredentialCheck =
  { ok: true; user: SessionUser } | { ok: false; reason: SignInFailure; user: SessionUser | null };

function view(user: DashboardUser): DashboardUserView {
  return {
    id: user.id,
    account_id: user.accountId,
    email: user.email,
    role: user.role,
    created_at: user.createdAt,
    disabled_at: user.disabledAt,
    password_changed_at: user.passwordChangedAt,
  };
}

function sessionUser(user: DashboardUser): SessionUser {
  return { id: user.id, accountId: user.accountId, email: user.email, role: user.role };
}

/**
 * Dashboard users (docs/dashboard.md#users-and-roles): created, listed, disabled and given new
 * passwords by operators with the CLI; their credentials checked at sign-in. Passwords are at
 * least 12 characters and stored only as argon2id hashes; a generated one is returned once.
 * Disabling a user or resetting their password ends all their sessions in the same
 * transaction (docs/dashboard.md#sessions). Each change is recorded in the audit log under the
 * caller's `AuditActor` in that transaction too (docs/architecture.md#who-writes-the-audit-log),
 * never a password; without an actor nothing is recorded.
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly campaigns: CampaignsService,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Creates a user of `accountId`, recorded as `user.create`
   * (`{email, role, password_generated}`) in the same transaction.
   * @param password the password, or undefined to generate one (24 random characters).
   * @returns the user, and the generated password when one was generated (never again available).
   * @throws InvalidInputError (field `email`, `role` or `password`); NotFoundError when the
   *   account does not exist; AlreadyExistsError when a user has that email (whatever its case).
   */
  async create(
    accountId: number,
    email: string,
    role: string,
    password?: string,
    actor?: AuditActor,
  ): Promise<{ user: DashboardUserView; password?: string }> {
    const normalised = normaliseEmail(email);
    if (!isDashboardRole(role)) {
      throw InvalidInputError.field('role', `must be one of ${DASHBOARD_ROLES.join(', ')}`);
    }
    const generated = password === undefined ? generatePassword() : undefined;
    const passwordHash = await hashPassword(generated ?? validatePassword(password!));
    if (accountId > MAX_INT4) throw new NotFoundError(`account ${accountId} does not exist`);
    try {
      const user = await this.dataSource.transaction(async (manager) => {
        const inserted = await this.users.insert(
          { accountId, email: normalised, role, passwordHash, at: this.clock.now() },
          manager,
        );
        await this.audit.recordChange(
          actor,
          {
            accountId: inserted.accountId,
            action: 'user.create',
            objectType: 'user',
            objectId: inserted.id,
            details: {
              email: inserted.email,
              role: inserted.role,
              password_generated: generated !== undefined,
            },
          },
          manager,
        );
        return inserted;
      });
      return generated === undefined
        ? { user: view(user) }
        : { user: view(user), password: generated };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === '23503') throw new NotFoundError(`account ${accountId} does not exist`);
      if (code === '23505') {
        throw new AlreadyExistsError(`a dashboard user with email ${normalised} exists already`);
      }
      throw error;
    }
  }

  /**
   * The users of `accountId`, oldest first, disabled ones included.
   * @throws NotFoundError when the account does not exist.
   */
  async list(accountId: number): Promise<DashboardUserView[]> {
    await this.campaigns.requireAccount(accountId);
    return (await this.users.listOfAccount(accountId)).map(view);
  }

  /**
   * Disables user `id` and ends all their sessions; disabling twice keeps the first time.
   * Recorded as `user.disable` (each time) in the same transaction.
   * @throws NotFoundError when no user has that id.
   */
  async disable(
    id: number,
    actor?: AuditActor,
  ): Promise<{ id: number; account_id: number; disabled_at: Date }> {
    const now = this.clock.now();
    const disabled =
      id > MAX_INT4
        ? null
        : await this.dataSource.transaction(async (manager) => {
            const row = await this.users.disable(manager, id, now);
            if (row) await this.endSessions(manager, row, now, actor, 'user.disable');
            return row;
          });
    if (!disabled) throw userNotFound(id);
    return disabled;
  }

  /**
   * Gives user `id` a new password and ends all their sessions. A disabled user stays disabled.
   * Recorded as `user.reset_password` (`{password_generated}`) in the same transaction.
   * @param password the new password, or undefined to generate one.
   * @returns the change time, and the generated password when one was generated.
   * @throws InvalidInputError (field `password`); NotFoundError when no user has that id.
   */
  async resetPassword(
    id: number,
    password?: string,
    actor?: AuditActor,
  ): Promise<{ id: number; account_id: number; password_changed_at: Date; password?: string }> {
    const generated = password === undefined ? generatePassword() : undefined;
    const passwordHash = await hashPassword(generated ?? validatePassword(password!));
    const now = this.clock.now();
    const changed =
      id > MAX_INT4
        ? null
        : await this.dataSource.transaction(async (manager) => {
            const row = await this.users.setPassword(manager, id, passwordHash, now);
            if (row) {
              await this.endSessions(manager, row, now, actor, 'user.reset_password', {
                password_generated: generated !== undefined,
              });
            }
            return row;
          });
    if (!changed) throw userNotFound(id);
    return generated === undefined ? changed : { ...changed, password: generated };
  }

  /**
   * Ends every session of `user` (disabled, or given a new password) and records `action` by
   * `actor`, in `manager`'s transaction.
   */
  private async endSessions(
    manager: EntityManager,
    user: { id: number; account_id: number },
    now: Date,
    actor: AuditActor | undefined,
    action: 'user.disable' | 'user.reset_password',
    details?: Record<string, unknown>,
  ): Promise<void> {
    const reason = action === 'user.disable' ? 'disabled' : 'password_reset';
    await this.sessions.endAllFor(manager, user.id, now, reason);
    await this.audit.recordChange(
      actor,
      { accountId: user.account_id, action, objectType: 'user', objectId: user.id, details },
      manager,
    );
  }

  /**
   * Makes the hash a sign-in with an unknown email is checked against, so that the first such
   * sign-in is not slower than one with a known email (docs/security.md). The dashboard calls
   * it at start; idempotent (the hash is made once per process).
   */
  async prepareSignIn(): Promise<void> {
    await dummyPasswordHash();
  }

  /**
   * {@link verifyCredentials} for a sign-in attempt from `ip`: a refusal is recorded as
   * `session.sign_in_failed` (`{reason}`; the attempted email, trimmed, as the actor's; the
   * user and their account when the email is theirs) before it is answered.
   * @throws the database's error when the refusal cannot be recorded.
   */
  async checkSignIn(email: string, password: string, ip: string): Promise<CredentialCheck> {
    const check = await this.verifyCredentials(email, password);
    if (!check.ok) {
      await this.audit.record({
        accountId: check.user?.accountId ?? null,
        actor: { type: 'user', userId: null, email: email.trim() },
        ip,
        action: 'session.sign_in_failed',
        objectType: check.user ? 'user' : null,
        objectId: check.user?.id ?? null,
        details: { reason: check.reason },
      });
    }
    return check;
  }

  /**
   * Checks a sign-in's email and password (docs/dashboard.md#sessions). Always verifies one
   * argon2id hash, a dummy one when no user has the email, so an unknown email, a wrong
   * password and a disabled user take about the same time. Never throws for bad input.
   * @returns the user when the password is right and the user is not disabled; else why not
   *   (and the user, when the email is theirs), for the audit log only.
   */
  async verifyCredentials(email: string, password: string): Promise<CredentialCheck> {
    const user =
      typeof email === 'string' && email.length <= 1000
        ? await this.users.findByEmail(email.trim())
        : null;
    const candidate = typeof password === 'string' && password.length <= MAX_PASSWORD_LENGTH;
    const matches = await verifyPassword(
      user?.passwordHash ?? (await dummyPasswordHash()),
      candidate ? password : '',
    );
    if (!user) return { ok: false, reason: 'unknown_email', user: null };
    if (!matches || !candidate)
      return { ok: false, reason: 'wrong_password', user: sessionUser(user) };
    if (user.disabledAt !== null) return { ok: false, reason: 'disabled', user: sessionUser(user) };
    return { ok: true, user: sessionUser(user) };
  }
}

function userNotFound(id: number): NotFoundError {
  return new NotFoundError(`dashboard user ${id} does not exist`);
}
