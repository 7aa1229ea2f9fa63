import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { cursorFields, keysetCursor } from '../../common/keyset-cursor';
import { NotFoundError } from '../../common/domain-error';
import type { Owned } from '../../common/owned-id';
import type { PageLimits } from '../../common/page-limit';
import { rejectionsCsv, type ImportRejection } from './import-rejections';
import { LeadImportsRepository, type LeadImportView } from './lead-import-history.repository';
import type { ImportCounts, NewLeadImport } from './lead-import-records';

export type { LeadImportView } from './lead-import-history.repository';

/** Imports per page when the caller names no `limit`, and the most it may ask for. */
export const IMPORTS_PAGE_DEFAULT = 50;
export const IMPORTS_PAGE_MAX = 200;
/** Rejected rows per page when the caller names no `limit`, and the most it may ask for. */
export const REJECTIONS_PAGE_DEFAULT = 100;
export const REJECTIONS_PAGE_MAX = 1_000;
/** The import list's `limit` rule (`parsePageLimit`). */
export const IMPORTS_PAGE_LIMITS: PageLimits = {
  fallback: IMPORTS_PAGE_DEFAULT,
  max: IMPORTS_PAGE_MAX,
};
/** The rejected rows list's `limit` rule (`parsePageLimit`). */
export const REJECTIONS_PAGE_LIMITS: PageLimits = {
  fallback: REJECTIONS_PAGE_DEFAULT,
  max: REJECTIONS_PAGE_MAX,
};

/** A page of a list, with the opaque cursor of the next one (null: this is the last). */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** An import list's cursor: `<created_at in µs since the epoch>.<import id>`. */
const IMPORT_CURSOR = keysetCursor({
  prefix: '',
  separator: '.',
  fields: [cursorFields.int8(), cursorFields.uuid()],
  maxLength: 96,
  message: 'is not a cursor of this list',
});

/** A rejected rows list's cursor: `r<row>`, a 0-based row of at most 9 digits (an `integer`). */
const ROW_CURSOR = keysetCursor({
  prefix: 'r',
  separator: '',
  fields: [cursorFields.natural(9)],
  maxLength: 96,
  message: 'is not a cursor of this list',
});

/**
 * The imports of campaigns and their rejected rows (docs/dashboard.md#imports), the owner of
 * `lead_import` and `lead_import_rejection`: every upload's compliance record and counts, and
 * the rows it rejected. The lead import writes them through {@link record},
 * {@link correctCounts} and {@link recordRejections}, in its own transaction. The dashboard's
 * reads take owned ids: the resource guard checked their account
 * (docs/architecture.md#account-access); one that vanished since is "not found".
 */
@Injectable()
export class LeadImports {
  constructor(private readonly repository: LeadImportsRepository) {}

  /**
   * Inserts an import's `lead_import` record in the caller's transaction (the lead import's,
   * docs/api.md#duplicates-and-counts), before its leads.
   * @throws the driver's error (a broken foreign key to the campaign, a taken spreadsheet
   *   chunk index `uq_lead_import_spreadsheet_chunk`); the caller's transaction is then aborted.
   */
  record(manager: EntityManager, record: NewLeadImport): Promise<void> {
    return this.repository.insertImport(manager, record);
  }

  /** Sets the counts of import `importId`'s record, in the caller's transaction. */
  correctCounts(manager: EntityManager, importId: string, counts: ImportCounts): Promise<void> {
    return this.repository.updateImportCounts(manager, importId, counts);
  }

  /**
   * Stores an import's rejected rows (docs/dashboard.md#imports) in the caller's transaction:
   * one statement whatever their number, none for an empty list.
   */
  recordRejections(
    manager: EntityManager,
    importId: string,
    rejections: ImportRejection[],
  ): Promise<void> {
    return this.repository.insertRejections(manager, importId, rejections);
  }

  /**
   * The ids of a spreadsheet import's chunks (each a `lead_import`), in file order
   * (docs/dashboard.md#spreadsheet-imports). Not scoped: the caller checked the import's account.
   */
  chunksOfSpreadsheetImport(spreadsheetImportId: string): Promise<string[]> {
    return this.repository.chunkIdsOf(spreadsheetImportId);
  }

  /**
   * Up to `limit` rejected rows of import `importId` after row `afterRow`, by row (its primary
   * key): one page of a keyset walk. Not scoped: the caller checked the import's account.
   */
  rejectionsAfter(importId: string, afterRow: number, limit: number): Promise<ImportRejection[]> {
    return this.repository.rejections(importId, afterRow, limit);
  }

  /**
   * A campaign's imports, newest first, keyset-paged.
   * @throws NotFoundError for a campaign that no longer exists; InvalidInputError (field
   *   `cursor`) for a cursor this list did not make.
   */
  async list(
    campaignId: Owned<'campaign'>,
    limit: number,
    cursor?: string,
  ): Promise<Page<LeadImportView>> {
    if (!(await this.repository.campaignExists(campaignId))) {
      throw new NotFoundError(`campaign ${campaignId} does not exist`);
    }
    const after = cursor === undefined ? null : IMPORT_CURSOR.decode(cursor);
    const rows = await this.repository.listOfCampaign(
      campaignId,
      after && { micros: after[0], id: after[1] },
      limit + 1,
    );
    const items = rows.slice(0, limit);
    const last = rows.length > limit ? items[items.length - 1] : null;
    return {
      items: items.map(({ micros: _micros, ...view }) => view),
      next_cursor: last ? IMPORT_CURSOR.encode([last.micros, last.id]) : null,
    };
  }

  /**
   * One import.
   * @throws NotFoundError for an import that no longer exists.
   */
  async find(importId: Owned<'import'>): Promise<LeadImportView> {
    const row = await this.repository.findById(importId);
    if (!row) throw new NotFoundError(`import ${importId} does not exist`);
    const { micros: _micros, ...view } = row;
    return view;
  }

  /**
   * An import's rejected rows by row, keyset-paged.
   * @throws NotFoundError for an import that no longer exists; InvalidInputError (field
   *   `cursor`) for a cursor this list did not make.
   */
  async rejections(
    importId: Owned<'import'>,
    limit: number,
    cursor?: string,
  ): Promise<Page<ImportRejection>> {
    await this.find(importId);
    const after = cursor === undefined ? -1 : ROW_CURSOR.decode(cursor)[0];
    const rows = await this.repository.rejections(importId, after, limit + 1);
    const items = rows.slice(0, limit);
    const last = rows.length > limit ? items[items.length - 1] : null;
    return { items, next_cursor: last ? ROW_CURSOR.encode([last.row]) : null };
  }

  /**
   * Every rejected row of an import, by row, `pageSize` at a time: for a CSV written as it is
   * read, never held whole in memory.
   * @throws NotFoundError for an import that no longer exists (before the first page).
   */
  async *allRejections(
    importId: Owned<'import'>,
    pageSize = REJECTIONS_PAGE_MAX,
  ): AsyncGenerator<ImportRejection[]> {
    let cursor: string | undefined;
    do {
      const page = await this.rejections(importId, pageSize, cursor);
      if (page.items.length > 0) yield page.items;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /**
   * Every rejected row of an import as CSV pages (the header first, then one page per
   * {@link allRejections} page), each cell neutralised against formula injection
   * (docs/dashboard.md#imports): a download written as it is read.
   * @param shown each rejected row as the reader may see it (a viewer's contact details
   *   masked: docs/privacy.md#contact-details-by-role); unchanged when not given.
   * @throws NotFoundError for an import that no longer exists (before the header).
   */
  async *rejectionsCsv(
    importId: Owned<'import'>,
    shown: (row: ImportRejection) => ImportRejection = (row) => row,
  ): AsyncGenerator<string> {
    const pages = this.allRejections(importId);
    const first = await pages.next();
    yield rejectionsCsv(first.done ? [] : first.value.map(shown), true);
    for await (const page of pages) yield rejectionsCsv(page.map(shown), false);
  }

  /**
   * Deletes the rejected rows of `campaignIds`' imports that name a person, in the caller's
   * transaction (an erasure, docs/privacy.md#erasure).
   * @param phoneDigits the phone's digit strings that count as it (international, national).
   * @param email a lower-cased email, or null.
   * @returns how many rows, and the imports they belonged to.
   */
  async erasePerson(
    manager: EntityManager,
    campaignIds: number[],
    phoneDigits: string[],
    email: string | null,
  ): Promise<{ rejections: number; importIds: string[] }> {
    const importIds = await this.repository.deletePersonRejections(
      manager,
      campaignIds,
      phoneDigits,
      email,
    );
    return { rejections: importIds.length, importIds: [...new Set(importIds)] };
  }

  /** The API keys that uploaded `importIds`, in the caller's transaction. */
  apiKeysOf(manager: EntityManager, importIds: string[]): Promise<number[]> {
    return importIds.length === 0
      ? Promise.resolve([])
      : this.repository.apiKeysOf(manager, importIds);
  }
}
