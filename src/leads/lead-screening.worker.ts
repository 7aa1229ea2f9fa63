import type { CountryCode } from 'libphonenumber-js/max';
import { checkLeads } from './lead-batch';
import type { LeadCheck } from './lead-validator';

/** One task of {@link LeadScreener}'s worker pool: a slice of an upload's leads. */
export interface ScreeningTask {
  leads: Record<string, unknown>[];
  /** The campaign's region for phones without `+`. */
  region: CountryCode;
}

/**
 * The worker threads' entry point (piscina loads this file's compiled form): the verdicts of
 * the slice's leads, in order, as {@link checkLeads} gives them in the main thread.
 */
export default function checkSlice(task: ScreeningTask): LeadCheck[] {
  return checkLeads(task.leads, task.region);
}
