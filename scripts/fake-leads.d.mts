/** Types of fake-leads.mjs: realistic fake leads for `POST /api/v1/leads/upload`. */

/** One element of an upload's `leads`; an invalid lead may lack `phone` or carry bad values. */
export interface FakeLead {
  phone?: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  company?: string;
  title?: string;
}

/** Every phone format the generator writes. */
export declare const PHONE_FORMATS: readonly string[];

/** Kinds of defect given to the `invalidShare` leads, assigned round-robin in this order. */
export declare const DEFECT_KINDS: readonly (
  | 'phone_missing'
  | 'phone_too_short'
  | 'phone_not_a_number'
  | 'email_invalid'
  | 'first_name_too_long'
)[];

/**
 * `count` fake leads with valid, distinct phones in many formats; deterministic with `seed`.
 * `invalidShare` (0..1) of them get one defect each; `duplicateShare` (0..1) repeat an earlier
 * valid lead's phone in another format.
 */
export declare function fakeLeads(
  count: number,
  options?: { seed?: number; invalidShare?: number; duplicateShare?: number },
): FakeLead[];
