import type { CountryCode } from 'libphonenumber-js/max';
import { checkLeads } from './lead-batch';
import { packChecks, unpackLeads } from './lead-transfer';

/** One task of `LeadScreener`'s worker pool: a slice of an upload's leads. */
export interface ScreeningTask {
  /** The slice's leads as `packLeads` gives them. */
  leads: unknown[];
  /** The campaign's region for phones without `+`. */
  region: CountryCode;
}

/**
 * The worker threads' entry point (piscina loads this file's compiled form): the verdicts of
 * the slice's leads, in order, as {@link checkLeads} gives them in the main thread, packed
 * (`packChecks`).
 */
export default function checkSlice(task: ScreeningTask): unknown[] {
  return packChecks(checkLeads(unpackLeads(task.leads), task.region));
}
