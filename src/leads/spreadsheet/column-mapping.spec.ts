import { checkMapping, leadOfRow, suggestMapping } from './column-mapping';

describe('suggestMapping', () => {
  it('matches the header names CRM exports use', () => {
    expect(
      suggestMapping(['Mobile', 'First Name', 'Surname', 'E-mail', 'Company Name', 'Job Title']),
    ).toEqual({ phone: 0, first_name: 1, last_name: 2, email: 3, company: 4, title: 5 });
    expect(suggestMapping(['Phone Number', 'EMAIL_ADDRESS', 'Organisation', 'notes'])).toEqual({
      phone: 0,
      email: 1,
      company: 2,
    });
  });

  it('matches near misses fuzzily, an exact match first, and a column once', () => {
    expect(suggestMapping(['Phone Numbr', 'Phone'])).toEqual({ phone: 1 });
    expect(suggestMapping(['Emial', 'Notes', ''])).toEqual({ email: 0 });
    expect(suggestMapping(['Lead score', 'Created at'])).toEqual({});
  });
});

describe('checkMapping', () => {
  it('takes lead fields to distinct columns, phone required', () => {
    expect(checkMapping({ phone: 2, email: 0, title: null }, 3)).toEqual({ phone: 2, email: 0 });
    expect(() => checkMapping({ email: 0 }, 3)).toThrow('mapping must map a column to phone');
    expect(() => checkMapping({ phone: 3 }, 3)).toThrow(
      'mapping.phone must be a column index from 0 to 2',
    );
    expect(() => checkMapping({ phone: 0, email: 0 }, 3)).toThrow(
      'mapping uses column 0 for two fields',
    );
    expect(() => checkMapping({ phone: 0, notes: 1 }, 3)).toThrow(
      /"notes", which is not a lead field/,
    );
    expect(() => checkMapping([0], 3)).toThrow(/must be an object/);
    expect(() => checkMapping({ phone: '0' }, 3)).toThrow(/mapping.phone/);
  });
});

describe('leadOfRow', () => {
  it('takes each mapped cell, leaving empty cells out', () => {
    expect(leadOfRow(['Ada', '', '+14155550100'], { phone: 2, first_name: 0, email: 1 })).toEqual({
      phone: '+14155550100',
      first_name: 'Ada',
    });
    expect(leadOfRow(['x'], { phone: 3 })).toEqual({});
  });
});
