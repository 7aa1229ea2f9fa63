import {
  maskContacts,
  maskContactsInText,
  maskEmail,
  maskPhone,
  maskSampleRows,
} from './contact-mask';

describe('contact details as viewers see them (docs/privacy.md#contact-details-by-role)', () => {
  it('shows a phone’s country code, first three national digits and last two', () => {
    expect(maskPhone('+14155550199')).toBe('+1 415 ••• ••99');
    expect(maskPhone('+447700900123')).toBe('+44 770 ••• ••23');
    expect(maskPhone('+33612345678')).toBe('+33 612 ••• •78');
  });

  it('keeps only the last two characters of something that is not an E.164 phone', () => {
    expect(maskPhone('12345')).toBe('•••45');
    expect(maskPhone('')).toBe('');
  });

  it('shows an email’s first character and its domain', () => {
    expect(maskEmail('alice@acme.com')).toBe('a•••@acme.com');
    expect(maskEmail('a@b.co')).toBe('a•••@b.co');
    expect(maskEmail('not-an-email')).toBe('•••');
  });

  it('masks every phone and email field wherever nested, and those inside stored bodies', () => {
    const at = new Date(0);
    expect(
      maskContacts({
        items: [{ id: 1, phone: '+14155550199', email: 'alice@acme.com', created_at: at }],
        submitted: { phone: '(415) 555-0199', first_name: 'Alice' },
        request_body: '{"data":{"phone":"+14155550199","email":"alice@acme.com"}}',
        note: 'alice@acme.com stays: not a contact field',
      }),
    ).toEqual({
      items: [{ id: 1, phone: '+1 415 ••• ••99', email: 'a•••@acme.com', created_at: at }],
      submitted: { phone: '••••••••••••99', first_name: 'Alice' },
      request_body: '{"data":{"phone":"+1 415 ••• ••99","email":"a•••@acme.com"}}',
      note: 'alice@acme.com stays: not a contact field',
    });
    expect(maskContactsInText('call +14155550199 or mail bob@x.io')).toBe(
      'call +1 415 ••• ••99 or mail b•••@x.io',
    );
  });

  it('masks a spreadsheet sample’s phone and email columns and phone-like or email cells elsewhere', () => {
    const rows = maskSampleRows(
      [
        [
          'Alice',
          '(415) 555-0199',
          'alice@acme.com',
          'call +14155550100',
          '2024',
          '+1 415 555 0111',
        ],
        ['', '', 'bob', 'bob@acme.com is on holiday', '12', 'n/a'],
      ],
      { first_name: 0, phone: 1, email: 2 },
    );
    expect(rows).toEqual([
      [
        'Alice',
        '••••••••••••99',
        'a•••@acme.com',
        'call +1 415 ••• ••00',
        '2024',
        '+1 415 ••• ••11',
      ],
      ['', '', '•••', 'b•••@acme.com is on holiday', '12', 'n/a'],
    ]);
  });
});
