import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import {
  CURRENT_HASH_KEY_ID,
  deriveIdentifierKey,
  identifierHash,
  normalizeEmailForHash,
} from './identifier-hash';
import type { SuppressionKind } from './suppression-entry.entity';
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
 * emails are trimmed and lower-cased here.
 */
@Injectable()
export class SuppressionList {
  private readonly key: Buffer;

  constructor(
    private readonly repository: SuppressionRepository,
    config: AppConfig,
  ) {
    this.key = deriveIdentifierKey(config.secretsEncryptionKey);
  }

  /** The id of the key the hashes are made with now. */
  get keyId(): number {
    return CURRENT_HASH_KEY_ID;
  }

  /** The keyed hash of a normalised identifier (32 bytes). */
  hash(kind: SuppressionKind, value: string): Buffer {
    return identifierHash(this.key, kind, kind === 'email' ? normalizeEmailForHash(value) : value);
  }

  /** The hashes of a person's identifiers, phone first; absent ones are left out. */
  hashesOf(person: PersonIdentifiers): SuppressionHash[] {
    const hashes: SuppressionHash[] = [];
    if (person.phone !== null)
      hashes.push({ kind: 'phone', hash: this.hash('phone', person.phone) });
    if (person.email !== null)
      hashes.push({ kind: 'email', hash: this.hash('email', person.email) });
    return hashes;
  }

  /**
   * Which of `people` the account's list holds, by phone or by email. An account whose list is
   * empty costs one index probe and no hashing.
   * @returns per person, in order: the field that matched (`phone` first), or null.
   */
  async matches(
    accountId: number,
    people: readonly PersonIdentifiers[],
  ): Promise<Array<SuppressionKind | null>> {
    const verdicts = new Array<SuppressionKind | null>(people.length).fill(null);
    if (people.length === 0 || !(await this.repository.hasAny(accountId))) return verdicts;
    const phoneHashes = people.map((p) => (p.phone === null ? null : this.hash('phone', p.phone)));
    const emailHashes = people.map((p) => (p.email === null ? null : this.hash('email', p.email)));
    const present = await this.repository.present(accountId, [
      ...phoneHashes.filter((h): h is Buffer => h !== null),
      ...emailHashes.filter((h): h is Buffer => h !== null),
    ]);
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
   * Adds hashes to the account's list in the caller's transaction.
   * @returns how many were not on it yet.
   */
  add(manager: EntityManager, accountId: number, entries: SuppressionHash[]): Promise<number> {
    return this.repository.add(manager, accountId, this.keyId, entries);
  }

  /** Removes hashes from the account's list in the caller's transaction. @returns how many were on it. */
  remove(manager: EntityManager, accountId: number, hashes: Buffer[]): Promise<number> {
    return hashes.length === 0
      ? Promise.resolve(0)
      : this.repository.remove(manager, accountId, hashes);
  }

  /** The number of entries on the account's list (its entries are never shown). */
  count(accountId: number): Promise<number> {
    return this.repository.count(accountId);
  }
}
