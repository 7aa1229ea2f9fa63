import { InvalidInputError } from '../common/domain-error';
import {
  csvCells,
  isFormula,
  Suppressions,
  SUPPRESSION_CSV_MAX_BYTES,
} from './suppressions.service';
import { nationalDigits, parsePerson, phoneDigitForms } from './person';

describe('suppression CSV files (docs/privacy.md#suppression-list)', () => {
  it('reads every non-empty cell, quotes removed', () => {
    expect([
      ...csvCells('phone,email\r\n"+1 415 555 0199", "a@b.co"\n\n,,\n"say ""hi""",x\n'),
    ]).toEqual(['phone', 'email', '+1 415 555 0199', 'a@b.co', 'say "hi"', 'x']);
  });

  it('refuses formula cells but takes phones written with +', () => {
    for (const cell of ['=1+1', '@SUM(A1)', '-2+3', '+A1', '\tx', '=HYPERLINK("x")']) {
      expect(isFormula(cell)).toBe(true);
    }
    for (const cell of ['+14155550199', '+1 415 555 0199', '+(1) 415', '4155550199', 'a@b.co']) {
      expect(isFormula(cell)).toBe(false);
    }
  });

  it('refuses a file over 5 MiB before reading it, writing nothing', async () => {
    const never = () => {
      throw new Error('must not be reached');
    };
    const service = new Suppressions(
      never as never,
      { inTransaction: never } as never,
      { requireAccount: never } as never,
      never as never,
    );
    const file = Buffer.alloc(SUPPRESSION_CSV_MAX_BYTES + 1, 0x31);
    await expect(service.importCsv(1, file, 'US', { type: 'cli' })).rejects.toThrow(
      new InvalidInputError('file must be at most 5 MiB', 'file'),
    );
  });
});

describe('naming a person (docs/privacy.md#erasure)', () => {
  it('normalises a phone like uploads do, and an email to lower case', () => {
    expect(parsePerson({ phone: '(415) 555-0199', email: ' Alice@Acme.COM ' }, 'US')).toEqual({
      phone: '+14155550199',
      email: 'alice@acme.com',
    });
    expect(parsePerson({ phone: '+33 6 12 34 56 78' }, null)).toEqual({
      phone: '+33612345678',
      email: null,
    });
  });

  it('refuses no identifier, a malformed phone, a list and a bad email', () => {
    expect(() => parsePerson({}, 'US')).toThrow('a phone or an email is required');
    expect(() => parsePerson({ phone: '12' }, 'US')).toThrow('phone is not a valid phone number');
    expect(() => parsePerson({ phone: '415 555 0199' }, null)).toThrow(
      'phone is not a valid international phone number',
    );
    expect(() => parsePerson({ phone: ['+14155550199'] }, 'US')).toThrow('phone must be a string');
    expect(() => parsePerson({ email: 'nope' }, 'US')).toThrow(
      'email is not a valid email address',
    );
    expect(() => parsePerson({ phone: '1'.repeat(65) }, 'US')).toThrow('at most 64 characters');
  });

  it('gives the digit forms a stored row may use', () => {
    expect(phoneDigitForms('+14155550199')).toEqual(['14155550199', '4155550199', '04155550199']);
    expect(phoneDigitForms('+447700900123')).toEqual(['447700900123', '7700900123', '07700900123']);
    expect(nationalDigits('+14155550199')).toBe('4155550199');
  });
});
