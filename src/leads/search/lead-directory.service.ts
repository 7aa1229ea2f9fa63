import { Injectable } from '@nestjs/common';
import type { CountryCode } from 'libphonenumber-js/max';
import { LeadDirectoryRepository, type LeadRecord } from './lead-directory.repository';
import { encodeSearchCursor, parseLeadSearch, type LeadSearchQuery } from './lead-search';
import type { SearchField } from './lead-search.constants';

/** A lead as the dashboard shows it (docs/dashboard.md#leads): the face's name for a lead row. */
export type LeadView = LeadRecord;

/** A page of a lead search (docs/dashboard.md#leads). */
export interface LeadSearchPage {
  /** What was matched: `phone` (exactly), `email` or `name` (by prefix). */
  field: SearchField;
  /** What was searched for: the E.164 phone, or the prefix as given (trimmed). */
  value: string;
  items: LeadRecord[];
  /** The cursor of the next page; null on the last page. */
  next_cursor: string | null;
}

/**
 * The dashboard's reads of leads (docs/dashboard.md#leads): a campaign's leads by phone, email
 * prefix or name prefix, and one lead with the compliance record of its import. Account scoping
 * is the caller's: it checks the campaign (and so the lead's campaign) against the session's
 * account with `CampaignsService`.
 */
@Injectable()
export class LeadDirectory {
  constructor(private readonly repository: LeadDirectoryRepository) {}

  /**
   * One page of campaign `campaignId`'s leads matching `query` ({@link parseLeadSearch}), in
   * the search's order: by E.164 phone, lower-cased email or lower-cased name, then id.
   * @param region the campaign's region, for phones written without `+`.
   * @throws InvalidInputError naming the bad parameter (`q`, `field`, `limit`, `cursor`).
   */
  async search(
    campaignId: number,
    region: CountryCode,
    query: LeadSearchQuery,
  ): Promise<LeadSearchPage> {
    const search = parseLeadSearch(query, region);
    const rows = await this.repository.search(campaignId, search);
    const page = rows.slice(0, search.limit);
    const last = page.at(-1);
    return {
      field: search.field,
      value: search.value,
      items: page.map(({ sort_key: _key, ...lead }) => lead),
      next_cursor:
        rows.length > search.limit && last
          ? encodeSearchCursor(search.field, { key: last.sort_key, id: last.id })
          : null,
    };
  }

  /** Lead `id`, or null when no lead has that id (its import: `LeadImports.find`). */
  find(id: number): Promise<LeadRecord | null> {
    return this.repository.find(id);
  }
}
