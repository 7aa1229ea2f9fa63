import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { SuppressionKind } from './suppression-entry.entity';

/** One entry to add: the kind and the keyed hash of the identifier. */
export interface SuppressionHash {
  kind: SuppressionKind;
  hash: Buffer;
}

/** Every query of `suppression_entry` (docs/privacy.md#suppression-list). */
@Injectable()
export class SuppressionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether the account's list holds at least one entry (an index probe). */
  async hasAny(accountId: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM suppression_entry WHERE account_id = $1 LIMIT 1',
      [accountId],
    );
    return rows.length > 0;
  }

  /**
   * Which of `hashes` (32 bytes each) the account's list holds: one probe of the primary key per
   * hash. The hashes go as one bytea cut in SQL, not as a `bytea[]`: the driver escapes an
   * array's elements one by one, which cost as much as the probes for 20,000 hashes.
   */
  async present(accountId: number, hashes: Buffer[]): Promise<Buffer[]> {
    if (hashes.length === 0) return [];
    const rows: Array<{ hash: Buffer }> = await this.dataSource.query(
      `SELECT s.hash FROM suppression_entry s
        WHERE s.account_id = $1
          AND s.hash IN (SELECT substring($2::bytea FROM i * 32 + 1 FOR 32)
                           FROM generate_series(0, $3::int - 1) AS i)`,
      [accountId, Buffer.concat(hashes), hashes.length],
    );
    return rows.map((row) => row.hash);
  }

  /**
   * Adds entries in the caller's transaction; ones the list holds already are left as they are.
   * @returns how many were new.
   */
  async add(
    manager: EntityManager,
    accountId: number,
    keyId: number,
    entries: SuppressionHash[],
  ): Promise<number> {
    if (entries.length === 0) return 0;
    // An INSERT answers its returned rows (an UPDATE or DELETE: [rows, count]).
    const rows: unknown[] = await manager.query(
      `INSERT INTO suppression_entry (account_id, hash, kind, key_id)
       SELECT $1, u.hash, u.kind, $4 FROM unnest($2::bytea[], $3::varchar[]) AS u(hash, kind)
       ON CONFLICT DO NOTHING
       RETURNING 1`,
      [accountId, entries.map((e) => e.hash), entries.map((e) => e.kind), keyId],
    );
    return rows.length;
  }

  /** Removes entries in the caller's transaction. @returns how many were there. */
  async remove(manager: EntityManager, accountId: number, hashes: Buffer[]): Promise<number> {
    const [, count]: [unknown, number] = await manager.query(
      'DELETE FROM suppression_entry WHERE account_id = $1 AND hash = ANY($2::bytea[])',
      [accountId, hashes],
    );
    return count;
  }

  /** The number of entries in the account's list. */
  async count(accountId: number): Promise<number> {
    const [row]: Array<{ n: string }> = await this.dataSource.query(
      'SELECT count(*) AS n FROM suppression_entry WHERE account_id = $1',
      [accountId],
    );
    return Number(row.n);
  }
}
