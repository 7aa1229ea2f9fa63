import { LEAD_FIELDS, type LeadCheck, type LeadField } from './lead-validator';

/**
 * Flat forms of leads and verdicts for the hand-off to and from worker threads
 * (`LeadScreener`): the structured clone of one array of values costs about half that of as
 * many small objects, whose every key it writes again. Pure; `unpack*` inverts `pack*`.
 */

/** The six fields `validateLead` reads, of every lead in turn (a missing field is undefined). */
export function packLeads(leads: readonly Record<string, unknown>[]): unknown[] {
  const packed = new Array<unknown>(leads.length * LEAD_FIELDS.length);
  let at = 0;
  for (const lead of leads) for (const field of LEAD_FIELDS) packed[at++] = lead[field];
  return packed;
}

/** Lead objects with the six fields of {@link packLeads}'s output, in order. */
export function unpackLeads(packed: readonly unknown[]): Record<string, unknown>[] {
  const leads = new Array<Record<string, unknown>>(packed.length / LEAD_FIELDS.length);
  for (let i = 0, at = 0; i < leads.length; i++) {
    const lead: Record<string, unknown> = {};
    for (const field of LEAD_FIELDS) lead[field] = packed[at++];
    leads[i] = lead;
  }
  return leads;
}

/**
 * Verdicts as one array: `true` and the normalised lead's six values (in `NormalizedLead`'s
 * order), or `false`, the field and the message.
 */
export function packChecks(checks: readonly LeadCheck[]): unknown[] {
  const packed: unknown[] = [];
  for (const check of checks) {
    if (check.ok) {
      const { phone, email, first_name, last_name, company, title } = check.lead;
      packed.push(true, phone, email, first_name, last_name, company, title);
    } else {
      packed.push(false, check.problem.var_field, check.problem.message);
    }
  }
  return packed;
}

/** The verdicts of {@link packChecks}'s output, as `validateLead` built them. */
export function unpackChecks(packed: readonly unknown[]): LeadCheck[] {
  const checks: LeadCheck[] = [];
  for (let at = 0; at < packed.length;) {
    if (packed[at++] === true) {
      checks.push({
        ok: true,
        lead: {
          phone: packed[at++] as string,
          email: packed[at++] as string | null,
          first_name: packed[at++] as string | null,
          last_name: packed[at++] as string | null,
          company: packed[at++] as string | null,
          title: packed[at++] as string | null,
        },
      });
    } else {
      const var_field = packed[at++] as LeadField;
      const message = packed[at++] as string;
      checks.push({ ok: false, problem: { var_field, message } });
    }
  }
  return checks;
}
