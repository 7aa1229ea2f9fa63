import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { SuppressionKind } from './suppression-entry.entity';

/** One entry to add: the kind, the keyed hash of the identifier and its fingerprint. */
export interface SuppressionHash {
  kind: SuppressionKind;
  hash: Buffer;
  /** The identifier's 32-bit fingerprint (docs/privacy.md#fingerprints), unsigned. */
  fingerprint: number;
}

/** Where an account's list stands: its version (a decimal string) and whether it holds any entry. */
export interface SuppressionListState {
  version: string;
  empty: boolean;
}

/** An entry as stored: its fingerprint sealed (docs/privacy.md#fingerprints). */
export interface StoredSuppressionEntry {
  kind: SuppressionKind;
  hash: Buffer;
  /** The fingerprint XOR its mask, as a signed 32-bit integer. */
  sealedFingerprint: number;
}

/** The sealed fingerprints of an account's entries added after a version. */
export interface SuppressionFingerprints {
  /** Entries read. */
  entries: number;
  /** Entries added before fingerprints were kept (`fingerprint IS NULL`). */
  unfingerprinted: number;
  /** The other entries, 20 bytes each: the hash's first 16 bytes, the sealed fingerprint (big-endian). */
  records: Buffer;
}

/** Every query of `suppression_entry` (docs/privacy.md#suppression-list). */
@Injectable()
export class SuppressionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The account's list version and whether the list is empty: two index probes in one query.
   * A list never changed has version `0`.
   */
  async state(accountId: number): Promise<SuppressionListState> {
    const [row]: Array<{ version: string | null; empty: boolean }> = await this.dataSource.query(
      `SELECT (SELECT version::text FROM suppression_list WHERE account_id = $1) AS version,
              NOT EXISTS (SELECT 1 FROM suppression_entry WHERE account_id = $1) AS empty`,
      [accountId],
    );
    return { version: row.version ?? '0', empty: row.empty };
  }

  /**
   * The sealed fingerprints of the account's entries added after list version `afterVersion`
   * (`-1`: all of them), packed into one `bytea` by PostgreSQL: a million entries come back as
   * 20 MB in one value, not a million rows.
   */
  async fingerprints(accountId: number, afterVersion: string): Promise<SuppressionFingerprints> {
    const [row]: Array<{ entries: number; unfingerprinted: number; records: Buffer | null }> =
      await this.dataSource.query(
        `SELECT count(*)::int AS entries,
                count(*) FILTER (WHERE fingerprint IS NULL)::int AS unfingerprinted,
                string_agg(substring(hash FROM 1 FOR 16) || int4send(fingerprint), ''::bytea)
                  FILTER (WHERE fingerprint IS NOT NULL) AS records
           FROM suppression_entry
          WHERE account_id = $1 AND list_version > $2::bigint`,
        [accountId, afterVersion],
      );
    return {
      entries: row.entries,
      unfingerprinted: row.unfingerprinted,
      records: row.records ?? Buffer.alloc(0),
    };
  }

  /**
   * Moves the account's list to its next version in the caller's transaction, and holds the
   * list's row until it commits: changes to one account's list commit one after another, so a
   * version read means every entry of that version and before has committed.
   * @returns the new version (a decimal string).
   */
  async nextVersion(manager: EntityManager, accountId: number): Promise<string> {
    const [row]: Array<{ version: string }> = await manager.query(
      `INSERT INTO suppression_list (account_id, version) VALUES ($1, 1)
       ON CONFLICT (account_id) DO UPDATE SET version = suppression_list.version + 1
       RETURNING version::text AS version`,
      [accountId],
    );
    return row.version;
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
   * Adds entries at list version `version` in the caller's transaction. An entry the list holds
   * already is left as it is, but given its sealed fingerprint if it was added before they were kept.
   * @returns how many were new.
   */
  async add(
    manager: EntityManager,
    accountId: number,
    keyId: number,
    version: string,
    given: StoredSuppressionEntry[],
  ): Promise<number> {
    // One row per hash: an upsert may not touch a row twice.
    const entries = [...new Map(given.map((e) => [e.hash.toString('base64'), e])).values()];
    if (entries.length === 0) return 0;
    // An INSERT answers its returned rows (an UPDATE or DELETE: [rows, count]); `xmax = 0`
    // tells an inserted row from one the conflict updated.
    const rows: Array<{ inserted: boolean }> = await manager.query(
      `INSERT INTO suppression_entry (account_id, hash, kind, key_id, fingerprint, list_version)
       SELECT $1, u.hash, u.kind, $4, u.fingerprint, $6::bigint
         FROM unnest($2::bytea[], $3::varchar[], $5::int[]) AS u(hash, kind, fingerprint)
       ON CONFLICT (account_id, hash) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, list_version = EXCLUDED.list_version
         WHERE suppression_entry.fingerprint IS NULL
       RETURNING (xmax = 0) AS inserted`,
      [
        accountId,
        entries.map((e) => e.hash),
        entries.map((e) => e.kind),
        keyId,
        entries.map((e) => e.sealedFingerprint),
        version,
      ],
    );
    return rows.filter((row) => row.inserted).length;
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
