import fc from 'fast-check';
import { LEAD_COLUMNS, leadColumnLiterals } from './lead-columns';
import type { NormalizedLead } from './lead-validator';

/** node-postgres's own conversion of a parameter to the text it sends (untyped module). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- pg ships no types for lib/utils
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '',
    'NULL',
    'null',
    '"',
    '\\',
    '\\"',
    '"\\',
    '{',
    '}',
    ',',
    ' a ',
    "O'Brien",
    '\ufffd',
  ),
);
const optional = fc.option(text, { nil: null });
const lead: fc.Arbitrary<NormalizedLead> = fc.record({
  phone: text,
  first_name: optional,
  last_name: optional,
  email: optional,
  company: optional,
  title: optional,
});

describe('leadColumnLiterals', () => {
  it('gives, for each column, the text node-postgres sends for that array', () => {
    fc.assert(
      fc.property(fc.array(lead, { maxLength: 20 }), (leads) => {
        const literals = leadColumnLiterals(leads);
        LEAD_COLUMNS.forEach((column, c) => {
          expect(literals[c]).toBe(prepareValue(leads.map((l) => l[column])));
        });
      }),
      { numRuns: 500 },
    );
  });

  it('writes null as NULL and quotes the text "NULL"', () => {
    const [phone, firstName] = leadColumnLiterals([
      { phone: '+1', first_name: null, last_name: null, email: null, company: null, title: null },
      {
        phone: 'a"b\\c',
        first_name: 'NULL',
        last_name: null,
        email: null,
        company: null,
        title: null,
      },
    ]);
    expect(phone).toBe('{"+1","a\\"b\\\\c"}');
    expect(firstName).toBe('{NULL,"NULL"}');
  });
});
