import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { isEmailAddress } from './email-address';
import type { LeadField } from '../lead-fields.constants';
import { cachePhonePatterns, spreadParseOptionsNatively } from './phone-patterns';

cachePhonePatterns();
spreadParseOptionsNatively();

/** One lead of an upload after validation: trimmed, blanks as null, phone in E.164. */
export interface NormalizedLead {
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  company: string | null;
  title: string | null;
}

// From the constants file, not the leads face: the screening threads load this file, and the
// face would load every leads entity, TypeORM and Nest into each of them
// (docs/architecture.md#lead-validation-cost).
export { LEAD_FIELDS, type LeadField } from '../lead-fields.constants';

/** The first problem of an invalid lead. */
export interface LeadProblem {
  var_field: LeadField;
  message: string;
}

/** The verdict of {@link validateLead}: the normalised lead, or its first problem. */
export type LeadCheck = { ok: true; lead: NormalizedLead } | { ok: false; problem: LeadProblem };

const MAX_TEXT_LENGTH = 255;
const MAX_EMAIL_LENGTH = 320;

/**
 * Normalises a phone number to E.164 with libphonenumber-js's full metadata. A number without
 * a leading `+` is read in `region`.
 *
 * @returns the E.164 form (e.g. `+14155552671`), or null when it is not a valid number.
 */
export function normalizePhone(raw: string, region: CountryCode): string | null {
  const parsed = parsePhoneNumberFromString(raw, { defaultCountry: region });
  return parsed && parsed.isValid() ? parsed.number : null;
}

function isBlank(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

/** Length in Unicode code points, as PostgreSQL counts `varchar(n)`. */
function codePointLength(text: string): number {
  return text.length <= MAX_TEXT_LENGTH ? text.length : [...text].length;
}

/**
 * A string field with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`),
 * which is what PostgreSQL would store for it; other values are returned as they are.
 */
function wellFormed(value: unknown): unknown {
  return typeof value === 'string' ? value.toWellFormed() : value;
}

/**
 * Validates one lead object of an upload (docs/api.md#per-lead-validation): fields are checked in the order
 * `phone, email, first_name, last_name, company, title` and the first failure is reported.
 * Unknown fields are ignored; duplicates are not this function's concern. String fields are
 * made well-formed first (a lone surrogate becomes U+FFFD), so the stored value and the one
 * webhooks deliver are the same; an email with a lone surrogate is still invalid.
 *
 * @param input one element of `leads` (already known to be a JSON object).
 * @param region ISO 3166-1 alpha-2 region of the campaign, for phones without `+`.
 */
export function validateLead(input: Record<string, unknown>, region: CountryCode): LeadCheck {
  const phoneRaw = wellFormed(input.phone);
  if (isBlank(phoneRaw)) return fail('phone', 'phone is required');
  if (typeof phoneRaw !== 'string') return fail('phone', 'phone must be a string');
  const phone = normalizePhone(phoneRaw.trim(), region);
  if (phone === null) return fail('phone', 'phone is not a valid phone number');

  let email: string | null = null;
  if (!isBlank(input.email)) {
    const candidate = typeof input.email === 'string' ? input.email.trim() : null;
    // validator.js throws on lone surrogates, so only well-formed strings reach it.
    if (
      candidate === null ||
      candidate.length > MAX_EMAIL_LENGTH ||
      !candidate.isWellFormed() ||
      !isEmailAddress(candidate)
    ) {
      return fail('email', 'email is not a valid email address');
    }
    email = candidate;
  }

  const lead: NormalizedLead = {
    phone,
    email,
    first_name: null,
    last_name: null,
    company: null,
    title: null,
  };
  for (const field of ['first_name', 'last_name', 'company', 'title'] as const) {
    const value = wellFormed(input[field]);
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string')
      return fail(field, `${field} must be a string of at most 255 characters`);
    if (value.includes('\u0000')) return fail(field, `${field} must not contain NUL characters`);
    const trimmed = value.trim();
    if (codePointLength(trimmed) > MAX_TEXT_LENGTH) {
      return fail(field, `${field} must be a string of at most 255 characters`);
    }
    lead[field] = trimmed === '' ? null : trimmed;
  }
  return { ok: true, lead };
}

function fail(field: LeadField, message: string): LeadCheck {
  return { ok: false, problem: { var_field: field, message } };
}
