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

/** An E.164 phone inside a text (a JSON body): `+` and 8 to 15 digits. */
const PHONE_IN_TEXT = /\+\d{8,15}/g;
/** An email inside a text: no quote, space, angle bracket or separator around the `@`. */
const EMAIL_IN_TEXT = /[^\s"'<>@,;:()[\]\\]+@[^\s"'<>@,;:()[\]\\]+\.[a-z]{2,}/gi;

/** A text (a request or response body) with every E.164 phone and email in it masked. */
export function maskContactsInText(text: string): string {
  return text.replace(PHONE_IN_TEXT, maskPhone).replace(EMAIL_IN_TEXT, maskEmail);
}

/** The fields whose text may hold contact details anywhere: stored request and response bodies. */
const TEXT_FIELDS = new Set(['request_body', 'response_excerpt', 'body']);

/**
 * A dashboard answer as a viewer sees it (docs/privacy.md#contact-details-by-role): every `phone`
 * and `email` field masked, wherever it is nested (a lead, a rejected row's `submitted`), and the
 * phones and emails inside stored bodies. Returns a copy; `value` is not changed.
 */
export function maskContacts(value: unknown, key?: string): unknown {
  if (typeof value === 'string') {
    if (key === 'phone') return maskPhone(value);
    if (key === 'email') return maskEmail(value);
    return key !== undefined && TEXT_FIELDS.has(key) ? maskContactsInText(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => maskContacts(item));
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, maskContacts(v, k)]),
  );
}

/** A cell that is only a phone's characters, with 7 to 15 digits: `(415) 555-0199`, `+44 20…`. */
const PHONE_CELL = /^\+?[\d\s().-]+$/;

/**
 * One cell of a spreadsheet's sample as a viewer sees it (docs/privacy.md#contact-details-by-role):
 * a cell of the column mapped to `phone` or that reads as a phone (7 to 15 digits and only
 * phone characters) is {@link maskPhone}d, a cell of the column mapped to `email` is
 * {@link maskEmail}ed, and the phones and emails inside any other cell are masked
 * ({@link maskContactsInText}).
 */
export function maskSampleCell(cell: string, kind: 'phone' | 'email' | null): string {
  if (cell === '') return cell;
  if (kind === 'email') return maskEmail(cell);
  const digits = cell.replace(/\D/g, '').length;
  if (kind === 'phone' || (PHONE_CELL.test(cell) && digits >= 7 && digits <= 15)) {
    return maskPhone(cell.startsWith('+') ? `+${cell.replace(/\D/g, '')}` : cell);
  }
  return maskContactsInText(cell);
}

/**
 * A spreadsheet upload's sample rows as a viewer sees them: every cell through
 * {@link maskSampleCell}, the columns `mapping` gives `phone` and `email` (0-based) masked whole.
 * Returns a copy.
 */
export function maskSampleRows(
  rows: readonly (readonly string[])[],
  mapping: Readonly<Record<string, number | undefined>>,
): string[][] {
  const kindOf = (column: number) =>
    mapping.phone === column ? 'phone' : mapping.email === column ? 'email' : null;
  return rows.map((row) => row.map((cell, column) => maskSampleCell(cell, kindOf(column))));
}
