/**
 * The upload's suppression check (docs/privacy.md#fingerprints), as two service processes on
 * one database see it: each keeps its own fingerprint filter of an account's list, and a
 * change one makes is seen by the other's next check, never served stale.
 */
import { DataSource } from 'typeorm';
import type { AppConfig } from '../src/config/app-config';
import { buildDataSourceOptions } from '../src/database/database-options';
import { ENTITIES } from '../src/entities';
import {
  deriveFingerprintKeys,
  unsealFingerprints,
} from '../src/leads/suppression/identifier-hash';
import { SuppressionList } from '../src/leads/suppression/suppression-list.service';
import { SuppressionFilters } from '../src/leads/suppression/suppression-filters';
import { SuppressionRepository } from '../src/leads/suppression/suppression.repository';
import { TEST_DATABASE_URL } from './support/env';

const config = { secretsEncryptionKey: Buffer.alloc(32, 7) } as AppConfig;

/** One process's view: its own pool, filters and list. */
async function serviceProcess() {
  const dataSource = new DataSource(buildDataSourceOptions(TEST_DATABASE_URL, 2, ENTITIES));
  await dataSource.initialize();
  const repository = new SuppressionRepository(dataSource);
  const filters = new SuppressionFilters(repository, config);
  const list = new SuppressionList(repository, filters, config);
  await list.onModuleInit();
  /** How many hashes each check looked up in the list. */
  const lookedUp: number[] = [];
  const present = repository.present.bind(repository);
  repository.present = (accountId, hashes) => {
    lookedUp.push(hashes.length);
    return present(accountId, hashes);
  };
  return { list, filters, dataSource, lookedUp };
}

const person = (n: number) => ({
  phone: `+1646${2_000_000 + n}`,
  email: `person${n}@example.com`,
});

describe('Suppression check across processes', () => {
  let a: Awaited<ReturnType<typeof serviceProcess>>;
  let b: Awaited<ReturnType<typeof serviceProcess>>;
  let accountId: number;

  beforeAll(async () => {
    a = await serviceProcess();
    b = await serviceProcess();
    [{ id: accountId }] = await a.dataSource.query(
      `INSERT INTO account (name) VALUES ('suppression check') RETURNING id`,
    );
  });

  afterAll(async () => {
    await a?.dataSource.destroy();
    await b?.dataSource.destroy();
  });

  const add = (
    list: SuppressionList,
    people: Array<{ phone: string | null; email: string | null }>,
  ) =>
    b.dataSource.transaction((manager) =>
      list.add(
        manager,
        accountId,
        people.flatMap((p) => list.hashesOf(p)),
      ),
    );

  it("sees another process's additions and removals on its next check", async () => {
    const batch = Array.from({ length: 2_000 }, (_, i) => person(i));
    expect((await a.list.matches(accountId, batch)).every((v) => v === null)).toBe(true);

    // B lists 100 people by phone and 100 others by email.
    await add(b.list, [
      ...batch.slice(0, 100).map((p) => ({ phone: p.phone, email: null })),
      ...batch.slice(100, 200).map((p) => ({ phone: null, email: p.email.toUpperCase() })),
    ]);
    const expected = [...Array(100).fill('phone'), ...Array(100).fill('email')];
    // A's first check looks up every lead while its filter is read; the next ones use it.
    let verdicts = await a.list.matches(accountId, batch);
    expect(verdicts.slice(0, 200)).toEqual(expected);
    expect(verdicts.slice(200).every((v) => v === null)).toBe(true);
    expect(a.lookedUp.at(-1)).toBe(4_000);
    await a.filters.settled(accountId);
    verdicts = await a.list.matches(accountId, batch);
    expect(verdicts.slice(0, 200)).toEqual(expected);
    expect(verdicts.slice(200).every((v) => v === null)).toBe(true);
    expect(a.lookedUp.at(-1)).toBeLessThan(300);

    // B lists one more person; A's filter, made before, sees them on its next check.
    await add(b.list, [{ phone: batch[1_999].phone, email: null }]);
    verdicts = await a.list.matches(accountId, batch);
    expect(verdicts[1_999]).toBe('phone');
    expect(verdicts.filter((v) => v !== null)).toHaveLength(201);
    expect(a.lookedUp.at(-1)).toBeLessThan(300);

    // B removes one; A's next check lets that person through.
    await b.dataSource.transaction((manager) =>
      b.list.remove(
        manager,
        accountId,
        b.list.hashesOf({ phone: batch[0].phone, email: null }).map((h) => h.hash),
      ),
    );
    const [first, second] = await a.list.matches(accountId, batch.slice(0, 2));
    expect([first, second]).toEqual([null, 'phone']);
    const [{ version }] = await a.dataSource.query(
      'SELECT version::int FROM suppression_list WHERE account_id = $1',
      [accountId],
    );
    expect(version).toBe(3);
  });

  it('finds entries made before fingerprints were kept, and fingerprints them when added again', async () => {
    const [{ id: old }] = await a.dataSource.query(
      `INSERT INTO account (name) VALUES ('suppression check, before fingerprints') RETURNING id`,
    );
    const legacy = person(5_000);
    const [entry] = b.list.hashesOf({ phone: legacy.phone, email: null });
    await a.dataSource.query(
      `INSERT INTO suppression_entry (account_id, hash, kind, key_id) VALUES ($1, $2, 'phone', 1)`,
      [old, entry.hash],
    );
    expect(await a.list.matches(old, [legacy, person(5_001)])).toEqual(['phone', null]);
    await a.filters.settled(old);
    expect(await a.list.matches(old, [legacy, person(5_001)])).toEqual(['phone', null]);
    // Entries without fingerprints: every identifier is looked up.
    expect(a.lookedUp.at(-1)).toBe(4);

    const added = await b.dataSource.transaction((manager) =>
      b.list.add(manager, old, [
        entry,
        ...b.list.hashesOf({ phone: null, email: 'x@example.com' }),
      ]),
    );
    expect(added).toBe(1);
    // Stored sealed: only the server's key turns it back into the fingerprint.
    const [row] = await a.dataSource.query(
      `SELECT substring(hash FROM 1 FOR 16) || int4send(fingerprint) AS record
         FROM suppression_entry WHERE account_id = $1 AND hash = $2`,
      [old, entry.hash],
    );
    expect(row.record.readUInt32BE(16)).not.toBe(entry.fingerprint);
    const { sealKey } = deriveFingerprintKeys(config.secretsEncryptionKey);
    expect(unsealFingerprints(sealKey, row.record)[0]).toBe(entry.fingerprint);
    expect(await a.list.matches(old, [legacy, person(5_001)])).toEqual(['phone', null]);
  });

  it('answers the same as looking up every lead, for 20,000 people against 5,000 entries', async () => {
    const [{ id: other }] = await a.dataSource.query(
      `INSERT INTO account (name) VALUES ('suppression check, many') RETURNING id`,
    );
    const listed = Array.from({ length: 2_500 }, (_, i) => person(100_000 + i * 8));
    await b.dataSource.transaction((manager) =>
      b.list.add(
        manager,
        other,
        listed.flatMap((p) => b.list.hashesOf(p)),
      ),
    );
    const people = Array.from({ length: 20_000 }, (_, i) => person(100_000 + i));
    await a.list.matches(other, people.slice(0, 1));
    await a.filters.settled(other);
    const verdicts = await a.list.matches(other, people);
    // Every listed phone and email, and about 1 % of the other 35,000, got as far as the lookup.
    expect(a.lookedUp.at(-1)).toBeGreaterThanOrEqual(5_000);
    expect(a.lookedUp.at(-1)).toBeLessThan(5_000 + 1_000);
    const expected = people.map((_, i) => (i % 8 === 0 ? 'phone' : null));
    expect(verdicts).toEqual(expected);
    // Emptied, the list costs nothing and matches nobody.
    await b.dataSource.query('DELETE FROM suppression_entry WHERE account_id = $1', [other]);
    expect((await a.list.matches(other, people)).every((v) => v === null)).toBe(true);
  });
});
