import { getCountries, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { InvalidInputError } from '../common/domain-error';
import { normalizePhone } from '../leads/upload';

/** The longest phone an erasure or the suppression list takes as written, in characters. */
const MAX_PHONE_INPUT = 64;
/** The longest email, as an upload takes it. */
const MAX_EMAIL_INPUT = 320;
/** A rough check only: an email that no upload could have stored matches nothing anyway. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;
const REGIONS = new Set<string>(getCountries());

/**
 * A person as erasures and the suppression list name them (docs/privacy.md#erasure): the phone
 * normalised to E.164 as uploads normalise it, the email trimmed and lower-cased.
 */
export interface Person {
  phone: string | null;
  email: string | null;
}

/** What a caller may send to name a person: each field is checked, nothing is trusted. */
export interface PersonInput {
  phone?: unknown;
  email?: unknown;
}

/**
 * Checks and normalises a person's phone and/or email (docs/privacy.md#erasure).
 * @param region the ISO 3166-1 alpha-2 region for a phone written without `+`, or null (then
 *   the phone must be international).
 * @throws InvalidInputError (field `phone` or `email`) when neither is given, when one is not a
 *   string, too long, or not a phone or an email.
 */
export function parsePerson(input: PersonInput, region: CountryCode | null): Person {
  const phone = blank(input.phone) ? null : parsePhone(input.phone, region);
  const email = blank(input.email) ? null : parseEmail(input.email);
  if (phone === null && email === null) {
    throw new InvalidInputError('a phone or an email is required to name the person', 'phone');
  }
  return { phone, email };
}

/**
 * A region given by a caller, upper or lower case.
 * @throws InvalidInputError (field `region`) for anything else than a supported region.
 */
export function parseRegion(region: unknown): CountryCode | null {
  if (region === undefined || region === null) return null;
  const code = typeof region === 'string' ? region.toUpperCase() : '';
  if (!REGIONS.has(code)) {
    throw InvalidInputError.field('region', 'must be an ISO 3166-1 alpha-2 region code');
  }
  return code as CountryCode;
}

/**
 * The digit strings that count as the phone where it was stored as written (rejected rows):
 * its international digits, its national number, and the national number after a trunk `0`.
 */
export function phoneDigitForms(e164: string): string[] {
  const parsed = parsePhoneNumberFromString(e164);
  const national = parsed ? String(parsed.nationalNumber) : e164.slice(1);
  return [...new Set([e164.slice(1), national, `0${national}`])];
}

/** The phone's national number (digits), as a substring of any way of writing it. */
export function nationalDigits(e164: string): string {
  const parsed = parsePhoneNumberFromString(e164);
  return parsed ? String(parsed.nationalNumber) : e164.slice(1);
}

function blank(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

function parsePhone(value: unknown, region: CountryCode | null): string {
  if (typeof value !== 'string') throw InvalidInputError.field('phone', 'must be a string');
  const text = value.trim();
  if (text.length > MAX_PHONE_INPUT) {
    throw InvalidInputError.field('phone', `must be at most ${MAX_PHONE_INPUT} characters`);
  }
  const phone = region === null ? international(text) : normalizePhone(text, region);
  if (phone === null) {
    throw InvalidInputError.field(
      'phone',
      region === null
        ? 'is not a valid international phone number (start it with +, or name a region or a campaign)'
        : 'is not a valid phone number',
    );
  }
  return phone;
}

function international(text: string): string | null {
  const parsed = parsePhoneNumberFromString(text);
  return parsed && parsed.isValid() ? parsed.number : null;
}

function parseEmail(value: unknown): string {
  if (typeof value !== 'string') throw InvalidInputError.field('email', 'must be a string');
  const email = value.trim().toLowerCase();
  if (email.length > MAX_EMAIL_INPUT || !EMAIL_SHAPE.test(email)) {
    throw InvalidInputError.field('email', 'is not a valid email address');
  }
  return email;
}
