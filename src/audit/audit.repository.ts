import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { AuditLogEntry, type AuditActorType } from './audit-log-entry.entity';
import type { AuditCursor } from './audit-cursor';

/** A row to insert into `audit_log_entry`. */
export interface AuditRow {
  accountId: number | null;
  actorType: AuditActorType;
  actorUserId: number | null;
  actorEmail: string | null;
  /** `portal:<subject id>` for a portal session's change; else null. */
  actorLabel: string | null;
  /** The API key's prefix for a portal session's or an API key's change; else null. */
  actorKeyPrefix: string | null;
  ip: string | null;
  action: string;
  objectType: string | null;
  objectId: string | null;
  details: Record<string, unknown>;
}

/** Which entries of an account to read: all, or those of one action and/or one user. */
export interface AuditFilter {
  /** One of `AUDIT_ACTIONS`. */
  action?: string;
  /** The actor's email, compared case-insensitively. */
  userEmail?: string;
}

/** A stored entry with its position for keyset paging. */
export interface StoredAuditRow extends AuditRow {
  id: number;
  createdAt: Date;
  createdAtMicros: bigint;
}

/**
 * Every query on `audit_log_entry` (docs/architecture.md#modules-and-tables): inserts, and the
 * keyset read of one account's entries, newest first, on the index
 * (`account_id`, `created_at` DESC, `id` DESC).
 */
@Injectable()
export class AuditRepository {
  constructor(
    @InjectRepository(AuditLogEntry) private readonly entries: Repository<AuditLogEntry>,
  ) {}

  /** Inserts one entry, in the caller's transaction when `manager` is given. @returns its id. */
  async insert(row: AuditRow, manager?: EntityManager): Promise<number> {
    const runner = manager ?? this.entries.manager;
    const [inserted]: Array<{ id: string }> = await runner.query(
      `INSERT INTO audit_log_entry
         (account_id, actor_type, actor_user_id, actor_email, ip, action, object_type, object_id, details,
          actor_label, actor_key_prefix)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
      [
        row.accountId,
        row.actorType,
        row.actorUserId,
        row.actorEmail,
        row.ip,
        row.action,
        row.objectType,
        row.objectId,
        JSON.stringify(row.details),
        row.actorLabel,
        row.actorKeyPrefix,
      ],
    );
    return Number(inserted.id);
  }

  /**
   * Up to `limit` entries of `accountId` matching `filter`, newest first, after `cursor` when
   * given: one backward range of the account's index, or of its action's or its user's.
   */
  async listOfAccount(
    accountId: number,
    cursor: AuditCursor | null,
    limit: number,
    filter: AuditFilter = {},
  ): Promise<StoredAuditRow[]> {
    const params: unknown[] = [accountId, limit];
    let after = '';
    if (cursor) {
      params.push(cursor.createdAtMicros.toString(), cursor.id);
      after = `AND (created_at, id) < ('epoch'::timestamptz + $${params.length - 1}::bigint * interval '1 microsecond', $${params.length})`;
    }
    if (filter.action !== undefined) {
      params.push(filter.action);
      after += ` AND action = $${params.length}`;
    }
    if (filter.userEmail !== undefined) {
      params.push(filter.userEmail);
      after += ` AND actor_email IS NOT NULL AND lower(actor_email) = lower($${params.length})`;
    }
    const rows: Array<Record<string, unknown>> = await this.entries.query(
      `SELECT id, account_id, actor_type, actor_user_id, actor_email, actor_label, actor_key_prefix,
              host(ip) AS ip, action,
              object_type, object_id, details, created_at,
              (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_micros
         FROM audit_log_entry
        WHERE account_id = $1 ${after}
        ORDER BY created_at DESC, id DESC
        LIMIT $2`,
      params,
    );
    return rows.map((row) => ({
      id: Number(row.id),
      accountId: row.account_id as number | null,
      actorType: row.actor_type as AuditActorType,
      actorUserId: row.actor_user_id as number | null,
      actorEmail: row.actor_email as string | null,
      actorLabel: row.actor_label as string | null,
      actorKeyPrefix: row.actor_key_prefix as string | null,
      ip: row.ip as string | null,
      action: row.action as string,
      objectType: row.object_type as string | null,
      objectId: row.object_id as string | null,
      details: row.details as Record<string, unknown>,
      createdAt: row.created_at as Date,
      createdAtMicros: BigInt(row.created_at_micros as string),
    }));
  }
}
