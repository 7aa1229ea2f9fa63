import type { LeadField } from './lead-fields.constants';

/**
 * The lead import's own shapes of an upload (docs/api.md#lead-upload), shared by the leads
 * sub-folders: the domain reads and answers these, and the HTTP edge's DTOs (`dto/`, with their
 * OpenAPI and validation decorators) have the same fields, so the domain imports no HTTP code.
 */

/** An upload request after the envelope checks, with the spec's defaults applied. */
export interface LeadUploadRequest {
  campaign_id: number;
  leads: Record<string, unknown>[];
  source: string;
  tags: string[];
  skip_duplicates: boolean;
  disclaimer_version: string;
}

/** One invalid lead of an upload: its 0-based `row`, the failing field and its message. */
export interface LeadUploadError {
  row: number;
  var_field: LeadField;
  message: string;
}

/**
 * The 202 body of an upload (docs/api.md#duplicates-and-counts): always
 * `received_count = valid_count + invalid_count` and `errors.length = invalid_count`; leads
 * created = `valid_count - duplicate_count`.
 */
export interface LeadUploadResponse {
  status: 'accepted';
  /** The import's id (UUID). */
  import_id: string;
  received_count: number;
  /** Leads that passed validation (duplicates skipped included). */
  valid_count: number;
  invalid_count: number;
  /** Valid leads skipped because the campaign already had the phone. */
  duplicate_count: number;
  /** One entry per invalid lead, by row. */
  errors: LeadUploadError[];
}
