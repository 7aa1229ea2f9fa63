import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { DashboardUser } from './dashboard-user.entity';
import type { DashboardRole } from './dashboard-roles.constants';

/**
 * Every query on `dashboard_user` (docs/architecture.md#modules-and-tables). Ids are assumed to
 * fit PostgreSQL's integer: callers filter larger ones first. Writes that must commit with the
 * end of the user's sessions take the caller's `EntityManager`.
 */
@Injectable()
export class UsersRepository {
  constructor(@InjectRepository(DashboardUser) private readonly users: Repository<DashboardUser>) {}

  /**
   * Inserts a user, in the caller's transaction when `manager` is given.
   * @throws the driver's unique violation (23505) when the email is taken (any case), and its
   *   foreign-key violation (23503) when the account does not exist.
   */
  insert(
    fields: {
      accountId: number;
      email: string;
      role: DashboardRole;
      passwordHash: string;
      at: Date;
    },
    manager?: EntityManager,
  ): Promise<DashboardUser> {
    const users = manager?.getRepository(DashboardUser) ?? this.users;
    return users.save(
      users.create({
        accountId: fields.accountId,
        email: fields.email,
        role: fields.role,
        passwordHash: fields.passwordHash,
        createdAt: fields.at,
        passwordChangedAt: fields.at,
        disabledAt: null,
      }),
    );
  }

  /** The user whose email equals `email` whatever the case, or null. */
  findByEmail(email: string): Promise<DashboardUser | null> {
    return this.users
      .createQueryBuilder('u')
      .where('lower(u.email) = lower(:email)', { email })
      .getOne();
  }

  /** The user `id`, or null. */
  findById(id: number): Promise<DashboardUser | null> {
    return this.users.findOneBy({ id });
  }

  /** The users of `accountId`, oldest first. */
  listOfAccount(accountId: number): Promise<DashboardUser[]> {
    return this.users.find({ where: { accountId }, order: { id: 'ASC' } });
  }

  /**
   * Sets `disabled_at` to `at` unless it is set already.
   * @returns the user's id, account and disabling time, or null when no user has that id.
   */
  async disable(
    manager: EntityManager,
    id: number,
    at: Date,
  ): Promise<{ id: number; account_id: number; disabled_at: Date } | null> {
    const [rows]: [Array<{ id: number; account_id: number; disabled_at: Date }>, number] =
      await manager.query(
        `UPDATE dashboard_user SET disabled_at = COALESCE(disabled_at, $2)
          WHERE id = $1 RETURNING id, account_id, disabled_at`,
        [id, at],
      );
    return rows[0] ?? null;
  }

  /**
   * Replaces the password hash and sets `password_changed_at` to `at`.
   * @returns the user's id, account and the change time, or null when no user has that id.
   */
  async setPassword(
    manager: EntityManager,
    id: number,
    passwordHash: string,
    at: Date,
  ): Promise<{ id: number; account_id: number; password_changed_at: Date } | null> {
    const [rows]: [Array<{ id: number; account_id: number; password_changed_at: Date }>, number] =
      await manager.query(
        `UPDATE dashboard_user SET password_hash = $2, password_changed_at = $3
          WHERE id = $1 RETURNING id, account_id, password_changed_at`,
        [id, passwordHash, at],
      );
    return rows[0] ?? null;
  }
}
