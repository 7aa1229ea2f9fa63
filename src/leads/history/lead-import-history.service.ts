import { Injectable } from '@nestjs/common';
import { cursorFields, keysetCursor } from '../../common/keyset-cursor';
import { NotFoundError } from '../../common/domain-error';
import type { Owned } from '../../common/owned-id';
import type { PageLimits } from '../../common/page-limit';
import { rejectionsCsv, type ImportRejection } from './import-rejections';
import { LeadImportsRepository, type LeadImportView } from './lead-import-history.repository';

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
 * The import history of campaigns (docs/dashboard.md#imports): every upload's compliance
 * record and counts, and the rows it rejected. Reads only. Every id is owned: the dashboard's
 * resource guard checked its account (docs/architecture.md#account-access), so another
 * account's campaign or import never reaches here; one that vanished since is "not found".
 */
@Injectable()
export class LeadImports {
  constructor(private readonly repository: LeadImportsRepository) {}

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
   * @throws NotFoundError for an import that no longer exists (before the header).
   */
  async *rejectionsCsv(importId: Owned<'import'>): AsyncGenerator<string> {
    const pages = this.allRejections(importId);
    const first = await pages.next();
    yield rejectionsCsv(first.done ? [] : first.value, true);
    for await (const page of pages) yield rejectionsCsv(page, false);
  }
}
