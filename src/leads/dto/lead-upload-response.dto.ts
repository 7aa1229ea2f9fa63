import type { LeadField } from '../lead-validator';

/** One invalid lead of an upload (spec 2.4). */
export interface LeadUploadError {
  /** 0-based index in the request's `leads` array. */
  row: number;
  var_field: LeadField;
  message: string;
}

/**
 * 202 body of `POST /leads/upload` (spec 2.3, CONTRACT 4.4). Always
 * `received_count = valid_count + invalid_count` and `errors.length = invalid_count`;
 * leads created = `valid_count - duplicate_count`.
 */
export interface LeadUploadResponse {
  status: 'accepted';
  /** UUID of the import record. */
  import_id: string;
  received_count: number;
  valid_count: number;
  invalid_count: number;
  /** Valid leads skipped because the campaign (or an earlier row) already had the phone. */
  duplicate_count: number;
  errors: LeadUploadError[];
}
