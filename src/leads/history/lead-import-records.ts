/**
 * The `lead_import` records (docs/api.md#duplicates-and-counts) as the lead import writes them
 * through {@link LeadImports}, and the counts the dashboard derives from them.
 */

/** The three counts of a `lead_import` row that depend on the outcome. */
export interface ImportCounts {
  validCount: number;
  invalidCount: number;
  duplicateCount: number;
}

/** A `lead_import` row about to be inserted (docs/api.md#duplicates-and-counts). */
export interface NewLeadImport extends ImportCounts {
  /** The import's UUID. */
  id: string;
  campaignId: number;
  /** The uploading API key (null for a chunk of a spreadsheet import). */
  apiKeyId: number | null;
  /** The dashboard user who imported a spreadsheet (docs/dashboard.md#spreadsheet-imports). */
  userId?: number | null;
  /** The spreadsheet import this is a chunk of, the chunk's index and its first file row. */
  spreadsheetImportId?: string | null;
  chunkIndex?: number | null;
  firstRow?: number | null;
  source: string;
  tags: string[];
  disclaimerVersion: string;
  /** When the request acknowledged compliance (its arrival). */
  complianceAcknowledgedAt: Date;
  clientIp: string | null;
  /** The length of the request's `leads`. */
  receivedCount: number;
}

/**
 * New leads an import stored (docs/dashboard.md#imports): its valid leads less the duplicates
 * skipped, which count as valid (docs/api.md#duplicates-and-counts). With the rejected rows,
 * they add up to the rows read.
 */
export function newLeads(validCount: number, duplicateCount: number): number {
  return validCount - duplicateCount;
}
