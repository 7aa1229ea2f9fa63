import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/*
 * How a viewer sees a phone or an email (docs/privacy.md#contact-details-by-role): enough to
 * recognise a person they already know, not enough to contact one they do not.
 */

const BULLET = '\u2022';

/**
 * `+14155550199` → `+1 415 ••• ••99`: the country code, the first three digits of the national
 * number and the last two; every other digit a bullet. A phone that is not E.164 keeps its
 * last two characters only.
 */
export function maskPhone(phone: string): string {
  const parsed = /^\+\d{6,15}$/.test(phone) ? parsePhoneNumberFromString(phone) : undefined;
  const national = parsed ? String(parsed.nationalNumber) : '';
  if (!parsed || national.length < 6) {
    return `${BULLET.repeat(Math.max(0, phone.length - 2))}${phone.slice(-2)}`;
  }
  const country = parsed.countryCallingCode;
  const head = national.slice(0, 3);
  const rest = national.slice(3);
  const hidden = rest.slice(0, -2);
  const groups = hidden.length <= 3 ? [hidden] : [hidden.slice(0, 3), hidden.slice(3)];
  const masked = groups.map((g) => BULLET.repeat(g.length));
  masked[masked.length - 1] += rest.slice(-2);
  // `+1 415 ••• ••99`: the last group carries the two digits shown.
  return `+${country} ${head} ${masked.join(' ')}`;
}

/** `alice@acme.com` → `a•••@acme.com`: the first character of the local part, the domain in full. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return `${BULLET.repeat(3)}`;
  return `${email[0]}${BULLET.repeat(3)}${email.slice(at)}`;
}
