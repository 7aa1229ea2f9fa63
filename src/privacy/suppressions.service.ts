import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit';
import { CampaignsService } from '../campaigns';
import { InvalidInputError } from '../common/domain-error';
import { SuppressionList, type SuppressionHash } from '../leads/suppression';
import { ErasureRepository } from './erasure.repository';
import { parsePerson, parseRegion, type PersonInput } from './person';
import { auditPrivacyChange, type PrivacyActor } from './privacy-actor';

/** The largest suppression CSV taken, in bytes (docs/privacy.md#suppression-list). */
export const SUPPRESSION_CSV_MAX_BYTES = 5 * 1024 * 1024;
/** The most identifiers one CSV may name. */
export const SUPPRESSION_CSV_MAX_ROWS = 200_000;

/** What a suppression CSV did: every row is counted once. */
export interface SuppressionImportOutcome {
  rows: number;
  added: number;
  already_listed: number;
  invalid: number;
  /** Cells that looked like spreadsheet formulas (`=`, `@`, `-`, `+` before a non-digit): refused. */
  formula_cells: number;
}

/**
 * The suppression list as admins and operators manage it (docs/privacy.md#suppression-list):
 * add or remove one person, import a CSV, count. Each change is audited without the phone or
 * the email; the entries themselves are never shown.
 */
@Injectable()
export class Suppressions {
  constructor(
    private readonly list: SuppressionList,
    private readonly transactions: ErasureRepository,
    private readonly campaigns: CampaignsService,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Adds a person's phone and/or email.
   * @param region for a phone without `+` (ISO 3166-1 alpha-2), or null.
   * @returns how many entries were new (0 when already listed).
   * @throws InvalidInputError for a bad phone, email or region; NotFoundError for an unknown account.
   */
  async add(
    accountId: number,
    input: PersonInput & { region?: unknown },
    actor: PrivacyActor,
  ): Promise<{ added: number }> {
    const person = parsePerson(input, parseRegion(input.region));
    await this.campaigns.requireAccount(accountId);
    const hashes = this.list.hashesOf(person);
    const added = await this.transactions.inTransaction(async (manager) => {
      const n = await this.list.add(manager, accountId, hashes);
      await auditPrivacyChange(
        this.audit,
        actor,
        accountId,
        'suppression.add',
        { added: n },
        manager,
      );
      return n;
    });
    return { added };
  }

  /**
   * Removes a person's phone and/or email.
   * @returns how many entries were on the list.
   * @throws as {@link add}.
   */
  async remove(
    accountId: number,
    input: PersonInput & { region?: unknown },
    actor: PrivacyActor,
  ): Promise<{ removed: number }> {
    const person = parsePerson(input, parseRegion(input.region));
    await this.campaigns.requireAccount(accountId);
    const hashes = this.list.hashesOf(person).map((h) => h.hash);
    const removed = await this.transactions.inTransaction(async (manager) => {
      const n = await this.list.remove(manager, accountId, hashes);
      await auditPrivacyChange(
        this.audit,
        actor,
        accountId,
        'suppression.remove',
        { removed: n },
        manager,
      );
      return n;
    });
    return { removed };
  }

  /**
   * Imports a CSV of phones and emails: every cell of every row is one identifier (a cell with
   * `@` an email, any other a phone), a header row of words is ignored as invalid cells. Bounded:
   * at most {@link SUPPRESSION_CSV_MAX_BYTES} bytes and {@link SUPPRESSION_CSV_MAX_ROWS}
   * identifiers; formula cells are refused and counted, never stored.
   * @throws InvalidInputError (field `file`) for a file too large, not UTF-8 text or with too many
   *   identifiers: nothing is added.
   */
  async importCsv(
    accountId: number,
    file: Buffer,
    region: unknown,
    actor: PrivacyActor,
  ): Promise<SuppressionImportOutcome> {
    if (file.length > SUPPRESSION_CSV_MAX_BYTES) {
      throw InvalidInputError.field(
        'file',
        `must be at most ${SUPPRESSION_CSV_MAX_BYTES / 1024 / 1024} MiB`,
      );
    }
    const text = new TextDecoder('utf-8', { fatal: false }).decode(file);
    if (text.includes('\u0000') || text.includes('\uFFFD')) {
      throw InvalidInputError.field('file', 'must be UTF-8 text (a CSV)');
    }
    const parsedRegion = parseRegion(region);
    await this.campaigns.requireAccount(accountId);
    const outcome: SuppressionImportOutcome = {
      rows: 0,
      added: 0,
      already_listed: 0,
      invalid: 0,
      formula_cells: 0,
    };
    const hashes: SuppressionHash[] = [];
    for (const cell of csvCells(text)) {
      outcome.rows++;
      if (outcome.rows > SUPPRESSION_CSV_MAX_ROWS) {
        throw InvalidInputError.field(
          'file',
          `must name at most ${SUPPRESSION_CSV_MAX_ROWS} phones and emails`,
        );
      }
      if (isFormula(cell)) {
        outcome.formula_cells++;
        continue;
      }
      try {
        const person = parsePerson(
          cell.includes('@') ? { email: cell } : { phone: cell },
          parsedRegion,
        );
        hashes.push(...this.list.hashesOf(person));
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        outcome.invalid++;
      }
    }
    outcome.added = await this.transactions.inTransaction(async (manager) => {
      let added = 0;
      for (let i = 0; i < hashes.length; i += 10_000) {
        added += await this.list.add(manager, accountId, hashes.slice(i, i + 10_000));
      }
      await auditPrivacyChange(
        this.audit,
        actor,
        accountId,
        'suppression.import',
        { ...outcome, added },
        manager,
      );
      return added;
    });
    outcome.already_listed = hashes.length - outcome.added;
    return outcome;
  }

  /** The number of entries on the account's list. @throws NotFoundError for an unknown account. */
  async count(accountId: number): Promise<{ entries: number }> {
    await this.campaigns.requireAccount(accountId);
    return { entries: await this.list.count(accountId) };
  }
}

/**
 * A spreadsheet formula as CSV injection uses it: `=`, `@`, `-`, a tab or carriage return first,
 * or `+` before something that is not a digit, a space or a parenthesis (`+1 415…` is a phone).
 */
export function isFormula(cell: string): boolean {
  return /^[=@\t\r-]/.test(cell) || /^\+[^0-9 (]/.test(cell);
}

/** The non-empty cells of a CSV text, trimmed, quotes removed (RFC 4180's `""` is a quote). */
export function* csvCells(text: string): Generator<string> {
  for (const line of text.split(/\r?\n/)) {
    for (const raw of line.split(',')) {
      let cell = raw.trim();
      if (cell.length >= 2 && cell.startsWith('"') && cell.endsWith('"')) {
        cell = cell.slice(1, -1).replaceAll('""', '"').trim();
      }
      if (cell !== '') yield cell;
    }
  }
}
