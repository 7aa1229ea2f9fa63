/**
 * Realistic fake leads for `POST /api/v1/leads/upload`: names, emails, companies and job titles
 * from @faker-js/faker, and phones that are valid under libphonenumber-js/max (read with
 * default region US), written in the formats people type: `(415) 555-2671`, `415.555.2671`,
 * `+14155552671`, `+44 20 7946 0958`, ...
 *
 * - `seed`: same seed, same leads (a private Faker instance); without it the global `faker`.
 * - Phones are distinct by E.164 across the array, except the `duplicateShare` rows, which
 *   repeat an earlier valid lead's phone in a different format (row 0 is never one of them).
 * - `invalidShare` rows get exactly one defect each, spread evenly over {@link DEFECT_KINDS}.
 * - About 10 % of leads are a phone only; about 20 % have no email (those included).
 *
 * Used by generate-leads.mjs, upload-leads.mjs and the tests (types in fake-leads.d.mts).
 * Plain ESM without `import.meta` or top-level await, so Jest can transform it to CommonJS.
 */
import { faker as globalFaker, Faker, en } from '@faker-js/faker';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Real US area codes (all valid in libphonenumber-js/max with any exchange 200-999). */
const US_AREA_CODES = [
  201, 202, 206, 212, 213, 214, 303, 305, 312, 347, 404, 415, 503, 512, 602, 617, 646, 702, 713,
  718, 773, 805, 818, 917, 972,
];

/** How people write a US number (area code, exchange, line), by format name. */
const US_FORMATS = {
  parens: (a, e, l) => `(${a}) ${e}-${l}`,
  dots: (a, e, l) => `${a}.${e}.${l}`,
  dashes: (a, e, l) => `${a}-${e}-${l}`,
  spaced_international: (a, e, l) => `+1 ${a} ${e} ${l}`,
  digits: (a, e, l) => `1${a}${e}${l}`,
  e164: (a, e, l) => `+1${a}${e}${l}`,
};

/** Numbers of other regions, written with `+` the local way; `d(n)` is n digits, no leading 0. */
const FOREIGN_NUMBERS = [
  (d) => `+44 20 7${d(3)} ${d(4)}`, // London
  (d) => `+49 30 ${d(7)}`, // Berlin
  (d) => `+33 1 ${d(2)} ${d(2)} ${d(2)} ${d(2)}`, // Paris
  (d) => `+61 2 9${d(3)} ${d(4)}`, // Sydney
  (d) => `+81 3-${d(4)}-${d(4)}`, // Tokyo
];
const FOREIGN_SHARE = 0.15;

/** Every phone format the generator writes (duplicates of foreign numbers use `e164`). */
export const PHONE_FORMATS = [...Object.keys(US_FORMATS), 'foreign_spaced'];

/** The one defect an invalid lead gets, by kind; each makes the API reject the lead. */
const DEFECTS = {
  phone_missing: (lead) => delete lead.phone,
  phone_too_short: (lead) => (lead.phone = '12345'),
  phone_not_a_number: (lead) => (lead.phone = 'not a phone'),
  email_invalid: (lead) => (lead.email = 'not-an-email'),
  first_name_too_long: (lead, f) => (lead.first_name = f.string.alpha(256)),
};
/** Kinds of defect of the `invalidShare` leads, assigned round-robin in this order. */
export const DEFECT_KINDS = Object.keys(DEFECTS);

/**
 * @param {number} count how many leads.
 * @param {{ seed?: number, invalidShare?: number, duplicateShare?: number }} [options]
 * @returns {Array<Record<string, string>>} `count` lead objects, ready for `leads` of an upload.
 */
export function fakeLeads(count, options = {}) {
  const { seed, invalidShare = 0, duplicateShare = 0 } = options;
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError('count must be a non-negative integer');
  }
  for (const [name, share] of Object.entries({ invalidShare, duplicateShare })) {
    if (!(share >= 0 && share <= 1)) throw new RangeError(`${name} must be from 0 to 1`);
  }
  const f = seed === undefined ? globalFaker : new Faker({ locale: [en] });
  if (seed !== undefined) f.seed(seed);

  // Which rows are broken or duplicates: a (seeded) shuffle of the rows, row 0 left out when
  // there are duplicates so that each one has an earlier valid lead to copy.
  const invalidCount = Math.round(count * invalidShare);
  const duplicateCount = Math.round(count * duplicateShare);
  const firstRow = duplicateCount > 0 ? 1 : 0;
  if (invalidCount + duplicateCount > count - firstRow) {
    throw new RangeError('invalidShare + duplicateShare leave no valid lead to duplicate');
  }
  const rows = f.helpers.shuffle(Array.from({ length: count - firstRow }, (_, i) => i + firstRow));
  const defects = new Map(
    rows.slice(0, invalidCount).map((row, k) => [row, DEFECT_KINDS[k % DEFECT_KINDS.length]]),
  );
  const duplicates = new Set(rows.slice(invalidCount, invalidCount + duplicateCount));

  const seen = new Set(); // E.164 of every phone handed out
  const valid = []; // { e164, format } of the valid leads so far, for duplicates
  const leads = [];
  for (let row = 0; row < count; row++) {
    const defect = defects.get(row);
    let phone;
    if (duplicates.has(row)) {
      phone = reformat(f, f.helpers.arrayElement(valid));
    } else {
      const fresh = uniquePhone(f, seen);
      if (!defect) valid.push(fresh);
      phone = fresh.text;
    }
    const lead = { phone, ...person(f) };
    if (defect) DEFECTS[defect](lead, f);
    leads.push(lead);
  }
  return leads;
}

/** A valid phone whose E.164 is not in `seen` yet (then added to it). */
function uniquePhone(f, seen) {
  for (;;) {
    const { text, format } = randomPhone(f);
    const parsed = parsePhoneNumberFromString(text, { defaultCountry: 'US' });
    if (parsed?.isValid() && !seen.has(parsed.number)) {
      seen.add(parsed.number);
      return { text, format, e164: parsed.number };
    }
  }
}

function randomPhone(f) {
  if (f.number.float() < FOREIGN_SHARE) {
    const digits = (n) => f.string.numeric({ length: n, allowLeadingZeros: false });
    return { text: f.helpers.arrayElement(FOREIGN_NUMBERS)(digits), format: 'foreign_spaced' };
  }
  const format = f.helpers.arrayElement(Object.keys(US_FORMATS));
  const area = String(f.helpers.arrayElement(US_AREA_CODES));
  const exchange = String(f.number.int({ min: 200, max: 999 }));
  const line = f.string.numeric({ length: 4, allowLeadingZeros: true });
  return { text: US_FORMATS[format](area, exchange, line), format };
}

/** The same number in another format than it was first written in. */
function reformat(f, { e164, format }) {
  if (format === 'foreign_spaced') return e164;
  const other = f.helpers.arrayElement(Object.keys(US_FORMATS).filter((name) => name !== format));
  return US_FORMATS[other](e164.slice(2, 5), e164.slice(5, 8), e164.slice(8));
}

/** Everything but the phone: ~10 % nothing at all, ~10 % more without an email. */
function person(f) {
  const roll = f.number.float();
  if (roll < 0.1) return {};
  const firstName = f.person.firstName();
  const lastName = f.person.lastName();
  const lead = { first_name: firstName, last_name: lastName };
  if (roll >= 0.2) lead.email = f.internet.email({ firstName, lastName });
  lead.company = f.company.name();
  lead.title = f.person.jobTitle();
  return lead;
}
