import fc from 'fast-check';
import { isEmail } from 'class-validator';
import { isEmailAddress } from './email-address';

/** Characters around every rule of `isEmail`: atoms, separators, IDN, full width, space. */
const CHARACTERS = [
  ...'abzABZ019',
  ...".@-_+!#$%&'*/=?^`{|}~",
  ...'"\\()<>[],;: \t',
  'é',
  'ü',
  '\u00a0',
  '\uff01',
  '\uff21',
  '\u2028',
  'ß',
  '😀',
];
const piece = (maxLength: number) => fc.string({ unit: fc.constantFrom(...CHARACTERS), maxLength });
/** Runs of one letter, for the 63-character label and 64/254-character limits. */
const run = fc
  .tuple(fc.constantFrom('a', '1', '-', 'x'), fc.integer({ min: 0, max: 70 }))
  .map(([c, n]) => c.repeat(n));
const label = fc.oneof(piece(8), run, fc.constantFrom('xn--p1ai', 'com', 'co', 'c', '1com'));
const domain = fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => labels.join('.'));
const localPart = fc.oneof(
  piece(12),
  run,
  fc.array(piece(6), { minLength: 1, maxLength: 4 }).map((atoms) => atoms.join('.')),
);
/** Near-valid addresses: valid characters, with now and then one of any kind. */
const near = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      { weight: 30, arbitrary: fc.constantFrom(...'abcXYZ0189-') },
      { weight: 1, arbitrary: fc.constantFrom(...CHARACTERS) },
    ),
    maxLength,
  });
const nearAddress = fc
  .tuple(
    fc.array(near(6), { minLength: 1, maxLength: 3 }),
    fc.array(fc.oneof(near(10), run), { minLength: 1, maxLength: 5 }),
    fc.constantFrom('com', 'io', 'c0m', 'xn--p1ai', 'co-', 'ORG'),
  )
  .map(([atoms, labels, tld]) => `${atoms.join('.')}@${[...labels, tld].join('.')}`);
/** Mostly address-shaped strings, some far from it. */
const candidate = fc.oneof(
  nearAddress,
  nearAddress,
  fc.tuple(localPart, domain).map(([local, host]) => `${local}@${host}`),
  fc.tuple(localPart, domain, domain).map(([local, a, b]) => `${local}@${a}@${b}`),
  piece(30),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

describe('isEmailAddress', () => {
  it("answers as class-validator's isEmail for every well-formed string", () => {
    fc.assert(
      fc.property(candidate, (text) => {
        fc.pre(text.isWellFormed());
        expect(isEmailAddress(text)).toBe(isEmail(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    'ada.lovelace@example.com',
    "o'brien+crm@mail.example.co.uk",
    'a@b.co',
    `${'a'.repeat(64)}@example.com`,
    `a@${'b'.repeat(63)}.com`,
    `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}`,
    'x@xn--80ak6aa92e.com',
    'user@sub-domain.example.org',
    'ada@example.comé',
    'ada@exämple.com',
  ])('accepts %s as isEmail does', (text) => {
    expect(isEmail(text)).toBe(true);
    expect(isEmailAddress(text)).toBe(true);
  });

  it.each([
    '',
    'plain',
    '@example.com',
    'ada@',
    'ada@example',
    'ada@example.c',
    'ada@example.123',
    'ada@-example.com',
    'ada@example-.com',
    'ada@exa_mple.com',
    'ada..lovelace@example.com',
    '.ada@example.com',
    'ada.@example.com',
    'ada@example..com',
    'ada@example.com.',
    'ada lovelace@example.com',
    'ada@lovelace@example.com',
    `${'a'.repeat(65)}@example.com`,
    `a@${'b'.repeat(64)}.com`,
    `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`,
    'ada@\uff41example.com',
  ])('rejects %s as isEmail does', (text) => {
    expect(isEmail(text)).toBe(false);
    expect(isEmailAddress(text)).toBe(false);
  });
});
