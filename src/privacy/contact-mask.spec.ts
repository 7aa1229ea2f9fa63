import { maskEmail, maskPhone } from './contact-mask';

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
});
