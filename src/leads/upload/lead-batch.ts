import type { CountryCode } from 'libphonenumber-js/max';
import type { LeadUploadError, LeadUploadResponse } from '..';
import { validateLead, type LeadCheck, type NormalizedLead } from './lead-validator';
// Type-only: the screening threads load this file, and the history face would load its
// module, TypeORM and Nest into each of them (docs/architecture.md#lead-validation-cost).
import type { ImportCounts } from '../history';

export type { ImportCounts };

/** The `errors` message of a duplicate phone (docs/api.md#per-lead-validation). */
export const DUPLICATE_MESSAGE = 'duplicate: a lead with this phone already exists in the campaign';

/** A lead that passed validation and is the first of its phone in the batch. */
export interface AcceptedLead {
  /** 0-based index in the request's `leads`. */
  row: number;
  lead: NormalizedLead;
}

/** A batch after {@link screenBatch}: what to insert, and what is already settled. */
export interface ScreenedBatch {
  /**
   * The leads to insert, sorted by phone (code-unit order): one lock order for every upload,
   * so concurrent uploads of overlapping phones never deadlock.
   */
  accepted: AcceptedLead[];
  /** One entry per invalid row (validation, or an in-batch duplicate), sorted by row. */
  errors: LeadUploadError[];
  /** In-batch duplicates skipped silently (with `skip_duplicates` only). */
  duplicates: number;
  /** The E.164 phones the suppression list refused (docs/privacy.md#suppression-list), if any. */
  suppressedPhones?: ReadonlySet<string>;
}

/** The settled outcome of an upload: its final `errors` and `duplicate_count`. */
export interface BatchOutcome {
  /** Every invalid row, sorted by row. */
  errors: LeadUploadError[];
  duplicates: number;
}

/**
 * Screens an upload's leads before anything is written (docs/api.md#per-lead-validation,
 * docs/api.md#duplicates-and-counts): validates each lead in `region`
 * ({@link checkLeads}), then settles phones that repeat within the batch
 * ({@link settleScreenedBatch}). Pure: no I/O.
 *
 * @param leads the request's `leads` (each a JSON object).
 * @param region the campaign's region for phones without `+`.
 * @param skipDuplicates the request's `skip_duplicates`.
 */
export function screenBatch(
  leads: Record<string, unknown>[],
  region: CountryCode,
  skipDuplicates: boolean,
): ScreenedBatch {
  return settleScreenedBatch(checkLeads(leads, region), skipDuplicates);
}

/**
 * The verdict of {@link validateLead} for each lead, in order: the per-lead half of
 * {@link screenBatch}, which depends on no other lead, so slices of a batch can be checked
 * apart (in worker threads) and their verdicts concatenated. Pure: no I/O.
 *
 * @param leads the leads to check (each a JSON object).
 * @param region the campaign's region for phones without `+`.
 */
export function checkLeads(leads: Record<string, unknown>[], region: CountryCode): LeadCheck[] {
  const checks = new Array<LeadCheck>(leads.length);
  for (let row = 0; row < leads.length; row++) checks[row] = validateLead(leads[row], region);
  return checks;
}

/**
 * The batch half of {@link screenBatch}, from the verdicts of all its leads in request order:
 * invalid rows become errors, and a phone that repeats within the batch keeps its first row (a
 * later row is skipped and counted with `skipDuplicates`, otherwise reported with
 * {@link DUPLICATE_MESSAGE}). The accepted leads are sorted by phone. Pure: no I/O.
 *
 * @param checks one verdict per lead of the request, in request order (index = row).
 * @param skipDuplicates the request's `skip_duplicates`.
 */
export function settleScreenedBatch(checks: LeadCheck[], skipDuplicates: boolean): ScreenedBatch {
  const errors: LeadUploadError[] = [];
  const accepted: AcceptedLead[] = [];
  const seenPhones = new Set<string>();
  let duplicates = 0;

  checks.forEach((check, row) => {
    if (!check.ok) {
      errors.push({ row, ...check.problem });
      return;
    }
    if (seenPhones.has(check.lead.phone)) {
      if (skipDuplicates) duplicates++;
      else errors.push({ row, var_field: 'phone', message: DUPLICATE_MESSAGE });
      return;
    }
    seenPhones.add(check.lead.phone);
    accepted.push({ row, lead: check.lead });
  });
  accepted.sort((a, b) => (a.lead.phone < b.lead.phone ? -1 : a.lead.phone > b.lead.phone ? 1 : 0));
  return { accepted, errors, duplicates };
}

/**
 * The message of a row refused because the account's suppression list holds its phone or email
 * (docs/privacy.md#suppression-list); like the duplicate's, it starts with its reason.
 */
export const SUPPRESSED_MESSAGE =
  "suppressed: this phone or email is on the account's suppression list";

/**
 * Moves the accepted leads the suppression list matched into the batch's errors, on the field
 * that matched (docs/privacy.md#suppression-list).
 * @param verdicts per accepted lead, in `batch.accepted`'s order: the matched field or null.
 * @returns the batch without them, its errors sorted by row.
 */
export function settleSuppressed(
  batch: ScreenedBatch,
  verdicts: ReadonlyArray<'phone' | 'email' | null>,
): ScreenedBatch {
  if (!verdicts.some((v) => v !== null)) return batch;
  const accepted: AcceptedLead[] = [];
  const errors = [...batch.errors];
  const suppressedPhones = new Set<string>();
  batch.accepted.forEach((a, i) => {
    const field = verdicts[i];
    if (field === null) {
      accepted.push(a);
      return;
    }
    errors.push({ row: a.row, var_field: field, message: SUPPRESSED_MESSAGE });
    suppressedPhones.add(a.lead.phone);
  });
  errors.sort((a, b) => a.row - b.row);
  return { accepted, errors, duplicates: batch.duplicates, suppressedPhones };
}

/**
 * Settles the accepted leads the campaign already had (docs/api.md#duplicates-and-counts): each
 * accepted lead whose phone is not in `createdPhones` is skipped and counted with
 * `skipDuplicates`, otherwise reported with {@link DUPLICATE_MESSAGE}. Pure: no I/O.
 *
 * @param createdPhones the E.164 phones the insert created.
 * @returns the final errors (a new array, sorted by row) and duplicate count.
 */
export function settleCampaignDuplicates(
  batch: ScreenedBatch,
  createdPhones: ReadonlySet<string>,
  skipDuplicates: boolean,
): BatchOutcome {
  const errors = [...batch.errors];
  let duplicates = batch.duplicates;
  for (const { row, lead } of batch.accepted) {
    if (createdPhones.has(lead.phone)) continue;
    if (skipDuplicates) duplicates++;
    else errors.push({ row, var_field: 'phone', message: DUPLICATE_MESSAGE });
  }
  errors.sort((a, b) => a.row - b.row);
  return { errors, duplicates };
}

/**
 * The counts of an import of `received` leads with this outcome: `valid = received − invalid`,
 * `invalid = errors.length` (docs/api.md#duplicates-and-counts).
 */
export function importCounts(received: number, outcome: BatchOutcome): ImportCounts {
  return {
    validCount: received - outcome.errors.length,
    invalidCount: outcome.errors.length,
    duplicateCount: outcome.duplicates,
  };
}

/**
 * The 202 body of an upload (docs/api.md#lead-upload). Its key order is part of the contract
 * of idempotent replays (the stored text is replayed byte for byte).
 *
 * @param importId the import's UUID.
 * @param received the length of the request's `leads`.
 */
export function uploadResponse(
  importId: string,
  received: number,
  outcome: BatchOutcome,
): LeadUploadResponse {
  return {
    status: 'accepted',
    import_id: importId,
    received_count: received,
    valid_count: received - outcome.errors.length,
    invalid_count: outcome.errors.length,
    duplicate_count: outcome.duplicates,
    errors: outcome.errors,
  };
}
