import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import xxhash from 'xxhash-wasm';
import { AppConfig } from '../../config/app-config';
import {
  CURRENT_HASH_KEY_ID,
  deriveFingerprintKeys,
  type FingerprintKeys,
  deriveIdentifierKey,
  identifierHash,
  sealFingerprints,
  normalizeEmailForHash,
} from './identifier-hash';
import type { SuppressionKind } from './suppression-entry.entity';
import { SuppressionFilters } from './suppression-filters';
import { SuppressionRepository, type SuppressionHash } from './suppression.repository';

/** A person as an upload normalised them: an E.164 phone and an email or null. */
export interface PersonIdentifiers {
  phone: string | null;
  email: string | null;
}

/**
 * An account's suppression list (docs/privacy.md#suppression-list): the phones and emails it
 * must not store again, kept only as keyed hashes (docs/privacy.md#keyed-hashes). The upload
 * and the spreadsheet import ask {@link matches} before they write; the privacy feature adds and
 * removes entries in its own transactions. Takes identifiers already normalised (E.164 phones);
 * emails are trimmed and lower-cased here. Each entry also keeps a 32-bit fingerprint
 * (docs/privacy.md#fingerprints), which lets a check skip the keyed hash and the lookup of
 * nearly every lead that is not listed.
 */
@Injectable()
export class SuppressionList implements OnModuleInit {
  private readonly key: Buffer;
  private readonly fingerprintKeys: FingerprintKeys;
  private h32: ((input: string, seed?: number) => number) | null = null;

  constructor(
    private readonly repository: SuppressionRepository,
    private readonly filters: SuppressionFilters,
    config: AppConfig,
  ) {
    this.key = deriveIdentifierKey(config.secretsEncryptionKey);
    this.fingerprintKeys = deriveFingerprintKeys(config.secretsEncryptionKey);
  }

  /** Loads the fingerprints' hash function (xxHash32, WebAssembly). */
  async onModuleInit(): Promise<void> {
    this.h32 = (await xxhash()).h32;
  }

  /** The id of the key the hashes are made with now. */
  get keyId(): number {
    return CURRENT_HASH_KEY_ID;
  }

  /** The keyed hash of a normalised identifier (32 bytes). */
  hash(kind: SuppressionKind, value: string): Buffer {
    return identifierHash(this.key, kind, kind === 'email' ? normalizeEmailForHash(value) : value);
  }

  /**
   * The 32-bit fingerprint of a normalised identifier (docs/privacy.md#fingerprints): xxHash32
   * of the value under the kind's seed, derived from the server's secret; unsigned.
   * @throws Error before the module has initialised.
   */
  fingerprint(kind: SuppressionKind, value: string): number {
    if (this.h32 === null) throw new Error('SuppressionList used before its module initialised');
    return this.h32(
      kind === 'email' ? normalizeEmailForHash(value) : value,
      this.fingerprintKeys.seeds[kind],
    );
  }

  /** The entries of a person's identifiers, phone first; absent ones are left out. */
  hashesOf(person: PersonIdentifiers): SuppressionHash[] {
    const hashes: SuppressionHash[] = [];
    if (person.phone !== null) hashes.push(this.entryOf('phone', person.phone));
    if (person.email !== null) hashes.push(this.entryOf('email', person.email));
    return hashes;
  }

  private entryOf(kind: SuppressionKind, value: string): SuppressionHash {
    return { kind, hash: this.hash(kind, value), fingerprint: this.fingerprint(kind, value) };
  }

  /**
   * Which of `people` the account's list holds, by phone or by email. An account whose list is
   * empty costs one indexed query. Otherwise each identifier's fingerprint is looked up in the
   * list's filter first; only the few it may hold are hashed and looked up in the list
   * (docs/privacy.md#fingerprints).
   * @returns per person, in order: the field that matched (`phone` first), or null.
   */
  async matches(
    accountId: number,
    people: readonly PersonIdentifiers[],
  ): Promise<Array<SuppressionKind | null>> {
    const verdicts = new Array<SuppressionKind | null>(people.length).fill(null);
    if (people.length === 0) return verdicts;
    const filter = await this.filters.of(accountId);
    if (filter === null) return verdicts;
    const candidate = (kind: SuppressionKind, value: string | null): Buffer | null =>
      value !== null && filter.mayHold(this.fingerprint(kind, value))
        ? this.hash(kind, value)
        : null;
    const phoneHashes = people.map((p) => candidate('phone', p.phone));
    const emailHashes = people.map((p) => candidate('email', p.email));
    const lookedUp = [...phoneHashes, ...emailHashes].filter((h): h is Buffer => h !== null);
    if (lookedUp.length === 0) return verdicts;
    const present = await this.repository.present(accountId, lookedUp);
    if (present.length === 0) return verdicts;
    const found = new Set(present.map((h) => h.toString('base64')));
    for (let i = 0; i < people.length; i++) {
      if (phoneHashes[i] !== null && found.has(phoneHashes[i]!.toString('base64'))) {
        verdicts[i] = 'phone';
      } else if (emailHashes[i] !== null && found.has(emailHashes[i]!.toString('base64'))) {
        verdicts[i] = 'email';
      }
    }
    return verdicts;
  }

  /**
   * Adds entries to the account's list in the caller's transaction, as the list's next
   * version (which holds the list's row until the transaction ends).
   * @returns how many were not on it yet.
   */
  async add(
    manager: EntityManager,
    accountId: number,
    entries: SuppressionHash[],
  ): Promise<number> {
    if (entries.length === 0) return 0;
    const version = await this.repository.nextVersion(manager, accountId);
    const sealed = sealFingerprints(this.fingerprintKeys.sealKey, entries);
    return this.repository.add(
      manager,
      accountId,
      this.keyId,
      version,
      entries.map((e, i) => ({ kind: e.kind, hash: e.hash, sealedFingerprint: sealed[i] })),
    );
  }

  /**
   * Removes hashes from the account's list in the caller's transaction, as its next version.
   * @returns how many were on it.
   */
  async remove(manager: EntityManager, accountId: number, hashes: Buffer[]): Promise<number> {
    if (hashes.length === 0) return 0;
    await this.repository.nextVersion(manager, accountId);
    return this.repository.remove(manager, accountId, hashes);
  }

  /** The number of entries on the account's list (its entries are never shown). */
  count(accountId: number): Promise<number> {
    return this.repository.count(accountId);
  }
}
