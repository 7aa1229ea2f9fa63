import { Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import type { EntityManager } from 'typeorm';
import { InvalidInputError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';
import { parsePageLimit } from '../common/page-limit';
import { AUDIT_ACTIONS, type AuditAction, type AuditObjectType } from './audit-actions.constants';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor';
import type { AuditActorType } from './audit-log-entry.entity';
import { AuditRepository, type AuditFilter } from './audit.repository';

/**
 * Who made a change: a dashboard user (the email attempted, for a failed sign-in), the CLI, or
 * the service itself (`system`, e.g. an endpoint disabled because it answered 410 Gone).
 */
export type AuditEntryActor =
  | { type: 'user'; userId: number | null; email: string | null }
  | { type: 'cli' }
  | { type: 'system' }
  | { type: 'portal'; subjectId: string; keyPrefix: string | null }
  | { type: 'api_key'; keyPrefix: string };

/** The operator CLI as an actor. */
export const CLI_ACTOR: { type: 'cli' } = { type: 'cli' };

/** The service itself as an actor (docs/dashboard.md#audit-log). */
export const SYSTEM_ACTOR: AuditEntryActor = { type: 'system' };

/** A signed-in dashboard user asking for a change, from the client IP `ip`. */
export interface DashboardUserActor {
  type: 'user';
  accountId: number;
  userId: number;
  email: string;
  ip: string;
}

/**
 * A portal session asking for a change (docs/dashboard.md#embedding-the-portal): recorded as
 * `portal:<subjectId>` with the prefix of the API key that minted its link (null for a link the
 * CLI minted), from the client IP `ip`.
 */
export interface PortalActor {
  type: 'portal';
  accountId: number;
  /** The platform's own user the link was minted for (`subject.id`). */
  subjectId: string;
  keyPrefix: string | null;
  ip: string;
}

/** An API key asking for a change through the public API (a portal link minted or revoked). */
export interface ApiKeyActor {
  type: 'api_key';
  accountId: number;
  keyPrefix: string;
  ip: string;
}

/**
 * Who asks a domain service for a change (docs/architecture.md#who-writes-the-audit-log): a
 * dashboard user (the edge builds it from the session), a portal session, an API key, or the
 * operator CLI ({@link CLI_ACTOR}). The service records the change under this actor.
 */
export type AuditActor = DashboardUserActor | PortalActor | ApiKeyActor | { type: 'cli' };

/** A change to record for an {@link AuditActor} ({@link AuditLog.recordChange}). */
export interface AuditChange {
  /**
   * The account the changed object belongs to: used for the CLI; a dashboard user's entry
   * belongs to the user's account.
   */
  accountId: number | null;
  action: AuditAction;
  objectType: AuditObjectType;
  objectId: number | string;
  /** What changed: never a secret, key, password or hash. */
  details?: Record<string, unknown>;
}

/** One entry to record ({@link AuditLog.record}). */
export interface AuditEntryInput {
  /** The account the entry belongs to; null only for a failed sign-in with an unknown email. */
  accountId: number | null;
  actor: AuditEntryActor;
  /** The client IP; null for the CLI and the system. */
  ip?: string | null;
  action: AuditAction;
  objectType?: AuditObjectType | null;
  objectId?: number | string | null;
  /** What changed: never a secret, key, password or hash. */
  details?: Record<string, unknown>;
}

/** An entry as listed (docs/dashboard.md#audit-log). */
export interface AuditEntryView {
  id: number;
  created_at: Date;
  actor: {
    type: AuditActorType;
    user_id: number | null;
    email: string | null;
    /** `portal:<subject id>`: only for a portal session's entry. */
    label?: string;
    /** The API key's prefix (null for a link the CLI minted): only for a portal session's or an API key's entry. */
    key_prefix?: string | null;
  };
  ip: string | null;
  action: string;
  object_type: string | null;
  object_id: string | null;
  details: Record<string, unknown>;
}

/** One page of the audit log; `next_cursor` is null on the last page. */
export interface AuditPage {
  entries: AuditEntryView[];
  next_cursor: string | null;
}

/** The longest email the user filter takes (the length of a user's email). */
export const AUDIT_USER_FILTER_MAX = 320;

/** Default and largest page sizes of {@link AuditLog.list}. */
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 100;

/** Keys never written into `details`, whatever a caller passes (docs/dashboard.md#audit-log). */
const SECRET_KEYS = /^(password|password_hash|secret|api_key|key|token|csrf_token|session)$/i;

/**
 * The audit log (docs/dashboard.md#audit-log): who (a dashboard user, `cli` or `system`), when, from
 * which IP, did what to which object. Written by the domain services in the transaction of the
 * change they record (docs/architecture.md#who-writes-the-audit-log), read per account, newest
 * first, by keyset. Never holds secrets: `details` keys that
 * name one are refused.
 */
@Injectable()
export class AuditLog {
  constructor(private readonly repository: AuditRepository) {}

  /**
   * Records one entry, in the caller's transaction when `manager` is given.
   * @returns the entry's id.
   * @throws Error when `details` names a secret (a programming error, never user input).
   */
  async record(entry: AuditEntryInput, manager?: EntityManager): Promise<number> {
    const details = entry.details ?? {};
    for (const key of Object.keys(details)) {
      if (SECRET_KEYS.test(key)) throw new Error(`audit details must not hold "${key}"`);
    }
    const ip = entry.ip && isIP(entry.ip) !== 0 ? entry.ip : null;
    const { actor } = entry;
    const hasIp = actor.type === 'user' || actor.type === 'portal' || actor.type === 'api_key';
    return this.repository.insert(
      {
        accountId: entry.accountId,
        actorType: actor.type,
        actorUserId: actor.type === 'user' ? actor.userId : null,
        actorEmail: actor.type === 'user' ? actor.email : null,
        actorLabel: actor.type === 'portal' ? `portal:${actor.subjectId}` : null,
        actorKeyPrefix:
          actor.type === 'portal' || actor.type === 'api_key' ? actor.keyPrefix : null,
        ip: hasIp ? ip : null,
        action: entry.action,
        objectType: entry.objectType ?? null,
        objectId:
          entry.objectId === undefined || entry.objectId === null ? null : String(entry.objectId),
        details,
      },
      manager,
    );
  }

  /**
   * Records `change` made by `actor`, in the caller's transaction when `manager` is given: a
   * dashboard user's entry belongs to the user's account and carries the user and IP; a portal
   * session's (`portal:<subject id>` and the minting key's prefix) and an API key's (its
   * prefix) belong to their account, with the IP; the CLI's belongs to `change.accountId`,
   * without IP. Without an actor (a service called by a
   * test's or a script's set-up, never by an edge) nothing is recorded.
   * @returns the entry's id, or null when nothing was recorded.
   * @throws Error when `details` names a secret (a programming error, never user input), or
   *   the database's error when the entry cannot be written (the caller's transaction then
   *   rolls back, change included).
   */
  async recordChange(
    actor: AuditActor | undefined,
    change: AuditChange,
    manager?: EntityManager,
  ): Promise<number | null> {
    if (!actor) return null;
    return this.record(entryOf(actor, change), manager);
  }

  /**
   * One page of `accountId`'s entries, newest first (keyset on `created_at`, `id`: every page
   * costs what the first does), optionally only those of one action and/or one user
   * (docs/dashboard.md#audit-log). A cursor is a position: with other filters it continues from
   * the same place.
   * @param cursor the `next_cursor` of the previous page, or undefined for the first.
   * @param limit 1 to {@link AUDIT_PAGE_MAX}, default {@link AUDIT_PAGE_DEFAULT}: a number, or
   *   the `limit` query parameter as the client wrote it ({@link parsePageLimit}).
   * @param filter `action`: one of `AUDIT_ACTIONS`; `userEmail`: the actor's email, 1 to
   *   {@link AUDIT_USER_FILTER_MAX} characters once trimmed, compared case-insensitively (a failed
   *   sign-in's attempted email included).
   * @throws InvalidInputError (field `cursor`, `limit`, `action` or `user`).
   */
  async list(
    accountId: number,
    cursor?: string,
    pageLimit?: number | string,
    filter: AuditFilter = {},
  ): Promise<AuditPage> {
    const limit = parsePageLimit(pageLimit, { fallback: AUDIT_PAGE_DEFAULT, max: AUDIT_PAGE_MAX });
    const checked = checkedFilter(filter);
    const after = cursor === undefined ? null : decodeAuditCursor(cursor);
    if (accountId > MAX_INT4) return { entries: [], next_cursor: null };
    const rows = await this.repository.listOfAccount(accountId, after, limit + 1, checked);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      entries: page.map((row) => ({
        id: row.id,
        created_at: row.createdAt,
        actor: {
          type: row.actorType,
          user_id: row.actorUserId,
          email: row.actorEmail,
          ...(row.actorType === 'portal' ? { label: row.actorLabel ?? '' } : {}),
          ...(row.actorType === 'portal' || row.actorType === 'api_key'
            ? { key_prefix: row.actorKeyPrefix }
            : {}),
        },
        ip: row.ip,
        action: row.action,
        object_type: row.objectType,
        object_id: row.objectId,
        details: row.details,
      })),
      next_cursor:
        rows.length > limit && last
          ? encodeAuditCursor({ createdAtMicros: last.createdAtMicros, id: last.id })
          : null,
    };
  }
}

/** The entry recording `change` by `actor`: in the actor's account, but for the CLI's. */
function entryOf(actor: AuditActor, change: AuditChange): AuditEntryInput {
  switch (actor.type) {
    case 'user':
      return {
        ...change,
        accountId: actor.accountId,
        actor: { type: 'user', userId: actor.userId, email: actor.email },
        ip: actor.ip,
      };
    case 'portal':
      return {
        ...change,
        accountId: actor.accountId,
        actor: { type: 'portal', subjectId: actor.subjectId, keyPrefix: actor.keyPrefix },
        ip: actor.ip,
      };
    case 'api_key':
      return {
        ...change,
        accountId: actor.accountId,
        actor: { type: 'api_key', keyPrefix: actor.keyPrefix },
        ip: actor.ip,
      };
    case 'cli':
      return { ...change, actor: CLI_ACTOR, ip: null };
  }
}

/**
 * `filter` as the repository reads it: the action checked against `AUDIT_ACTIONS`, the email
 * trimmed and its length checked.
 * @throws InvalidInputError (field `action` or `user`).
 */
function checkedFilter(filter: AuditFilter): AuditFilter {
  const checked: AuditFilter = {};
  if (filter.action !== undefined) {
    if (!(AUDIT_ACTIONS as readonly string[]).includes(filter.action)) {
      throw InvalidInputError.field('action', `must be one of ${AUDIT_ACTIONS.join(', ')}`);
    }
    checked.action = filter.action;
  }
  if (filter.userEmail !== undefined) {
    const email = filter.userEmail.trim();
    if (email === '' || [...email].length > AUDIT_USER_FILTER_MAX) {
      throw InvalidInputError.field(
        'user',
        `must be an email of 1 to ${AUDIT_USER_FILTER_MAX} characters`,
      );
    }
    checked.userEmail = email;
  }
  return checked;
}
