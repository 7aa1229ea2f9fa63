import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { CampaignNotFoundError } from '../../campaigns';
import { leadColumnLiterals } from './lead-columns';
import type { NormalizedLead } from './lead-validator';

const FOREIGN_KEY_VIOLATION = '23503';
const UNIQUE_VIOLATION = '23505';
/**
 * The foreign key an import breaks when its campaign no longer exists. The leads reference
 * the import (`fk_lead_lead_import`), written first in the same transaction, which holds the
 * campaign's row from then on.
 */
const CAMPAIGN_FOREIGN_KEY = 'fk_lead_import_campaign';

/**
 * Whether `error` (as TypeORM throws it, the PostgreSQL error under `driverError`) is a
 * foreign-key violation (`23503`) of `lead_import` against `campaign`: the campaign was
 * deleted while the upload ran.
 */
export function breaksCampaignForeignKey(error: unknown): boolean {
  const driverError = (
    error as { driverError?: { code?: unknown; constraint?: unknown } } | null | undefined
  )?.driverError;
  return (
    driverError?.code === FOREIGN_KEY_VIOLATION && driverError.constraint === CAMPAIGN_FOREIGN_KEY
  );
}

/** A lead row as created by {@link LeadsRepository.insertIgnoringDuplicates}. */
export interface CreatedLead {
  id: number;
  phone: string;
  created_at: Date;
}

/**
 * What {@link LeadsRepository.insertIgnoringDuplicates} created: every lead it was given
 * (`all`), or only some, with their phones.
 */
export type InsertedLeads = (
  | { all: true }
  | {
      all: false;
      /** The E.164 phones created (a phone the campaign had is absent). */
      phones: ReadonlySet<string>;
    }
) & {
  /** How many leads were created. */
  count: number;
  /**
   * The created leads with their ids and `created_at`, in no particular order (for events):
   * as the insert returned them, or read back by `import_id` in the same transaction.
   */
  read(): Promise<CreatedLead[]>;
};

/** The fields every lead of one import shares. */
export interface ImportContext {
  /** The import's UUID (`import_id`). */
  importId: string;
  campaignId: number;
  source: string;
  tags: string[];
}

/**
 * The SQL of lead uploads (docs/api.md#lead-upload): the import's transaction and the bulk
 * insert of its leads (table `lead`, this module's), each written once and readable on its own.
 * The import's `lead_import` record and rejected rows are written in the same transaction
 * through `LeadImports` (the history module owns those tables).
 */
@Injectable()
export class LeadsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work` in one READ COMMITTED transaction: everything it writes commits together, or
   * nothing does (docs/api.md#duplicates-and-counts).
   *
   * @param campaignId the campaign the import writes into.
   * @returns what `work` returns, once committed.
   * @throws CampaignNotFoundError when a write broke a foreign key to the campaign (it was
   *   deleted meanwhile); otherwise the error of `work` or of the commit, as thrown (the
   *   transaction is rolled back).
   */
  async inImportTransaction<T>(
    campaignId: number,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.dataSource.transaction('READ COMMITTED', work);
    } catch (error) {
      if (breaksCampaignForeignKey(error)) throw new CampaignNotFoundError(campaignId);
      throw error;
    }
  }

  /**
   * Inserts `leads` (`INSERT … SELECT FROM unnest(…)`), skipping any phone the campaign already
   * has: the unique constraint on (campaign_id, phone) decides, so concurrent uploads of one
   * phone create one lead. Callers pass leads sorted by phone, so concurrent uploads take row
   * locks in one order and cannot deadlock each other.
   *
   * A plain INSERT without RETURNING is tried first, under a savepoint: it costs less than
   * `ON CONFLICT DO NOTHING`'s speculative insertion of every row and than sending 10,000 rows
   * back, and when it succeeds every lead was created, so the ids are read back (by
   * `import_id`) only if someone needs them. If any phone is taken (unique violation on
   * `uq_lead_campaign_id_phone`, including one a concurrent upload committed while this one
   * waited), the savepoint is rolled back and `INSERT … ON CONFLICT DO NOTHING RETURNING id,
   * phone` decides row by row, as it always did; every row's `created_at` is then the column
   * default `now()`, the transaction's start, read once.
   *
   * @param manager the transaction to write in.
   * @param leads the leads of this import (`context.importId`), sorted by phone.
   * @throws the driver's error of any other failure (the transaction is then aborted).
   */
  async insertIgnoringDuplicates(
    manager: EntityManager,
    context: ImportContext,
    leads: NormalizedLead[],
  ): Promise<InsertedLeads> {
    if (leads.length === 0) return { all: true, count: 0, read: () => Promise.resolve([]) };
    const parameters = [
      context.campaignId,
      context.importId,
      context.source,
      context.tags,
      ...leadColumnLiterals(leads),
    ];
    await manager.query('SAVEPOINT lead_insert');
    try {
      await manager.query(insertLeads(''), parameters);
      await manager.query('RELEASE SAVEPOINT lead_insert');
      return {
        all: true,
        count: leads.length,
        read: () => createdByImport(manager, context.importId),
      };
    } catch (error) {
      if (!violatesUniquePhone(error)) throw error;
      await manager.query('ROLLBACK TO SAVEPOINT lead_insert');
    }
    const rows: Array<{ id: string; phone: string }> = await manager.query(
      insertLeads(
        'ON CONFLICT ON CONSTRAINT uq_lead_campaign_id_phone DO NOTHING RETURNING id, phone',
      ),
      parameters,
    );
    const createdAt = rows.length > 0 ? await transactionStart(manager) : new Date(0);
    const created = rows.map((row) => ({
      id: Number(row.id),
      phone: row.phone,
      created_at: createdAt,
    }));
    const read = () => Promise.resolve(created);
    return rows.length === leads.length
      ? { all: true, count: rows.length, read }
      : { all: false, count: rows.length, phones: new Set(created.map((c) => c.phone)), read };
  }

  /**
   * Deletes a person's leads in `campaignIds`, in the caller's transaction (an erasure,
   * docs/privacy.md#erasure): by phone through `uq_lead_campaign_id_phone`, by email through
   * `idx_lead_search_email` (lower-cased), never a scan of the table.
   * @param phone an E.164 phone, or null.
   * @param email a lower-cased email, or null.
   * @returns the deleted leads' ids and the imports they came from.
   */
  async deletePerson(
    manager: EntityManager,
    campaignIds: number[],
    phone: string | null,
    email: string | null,
  ): Promise<Array<{ id: number; importId: string }>> {
    const [rows]: [Array<{ id: string; import_id: string }>] = await manager.query(
      `DELETE FROM lead WHERE id IN (
         SELECT id FROM lead WHERE campaign_id = ANY($1::int[]) AND phone = $2
         UNION
         SELECT id FROM lead WHERE campaign_id = ANY($1::int[]) AND lower(email) COLLATE "C" = $3)
       RETURNING id, import_id`,
      [campaignIds, phone, email],
    );
    return rows.map((row) => ({ id: Number(row.id), importId: row.import_id }));
  }
}

/**
 * The leads' INSERT, with `tail` (conflict and returning clauses) at its end. `$5`–`$10` are
 * the `text[]` literals of `leadColumnLiterals`, in `LEAD_COLUMNS` order.
 */
function insertLeads(tail: string): string {
  return `INSERT INTO lead (campaign_id, import_id, source, tags, phone, first_name, last_name, email, company, title)
       SELECT $1, $2, $3, $4::text[], l.phone, l.first_name, l.last_name, l.email, l.company, l.title
         FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
              AS l(phone, first_name, last_name, email, company, title)
       ${tail}`;
}

/**
 * Whether `error` (as TypeORM throws it) is a unique violation (`23505`) of
 * `uq_lead_campaign_id_phone`: some phone of the insert is already a lead of the campaign.
 */
export function violatesUniquePhone(error: unknown): boolean {
  const driverError = (
    error as { driverError?: { code?: unknown; constraint?: unknown } } | null | undefined
  )?.driverError;
  return (
    driverError?.code === UNIQUE_VIOLATION && driverError.constraint === 'uq_lead_campaign_id_phone'
  );
}

/** The leads an import created, read back in its transaction (`idx_lead_import_id`). */
async function createdByImport(manager: EntityManager, importId: string): Promise<CreatedLead[]> {
  const rows: Array<{ id: string; phone: string; created_at: Date }> = await manager.query(
    'SELECT id, phone, created_at FROM lead WHERE import_id = $1',
    [importId],
  );
  return rows.map((row) => ({ id: Number(row.id), phone: row.phone, created_at: row.created_at }));
}

/**
 * The transaction's start time, `now()`: the `created_at` default of every row the
 * transaction inserts.
 */
async function transactionStart(manager: EntityManager): Promise<Date> {
  const rows: Array<{ now: Date }> = await manager.query('SELECT now() AS now');
  return rows[0].now;
}
