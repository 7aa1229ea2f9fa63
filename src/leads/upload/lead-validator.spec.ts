import { normalizePhone, validateLead } from './lead-validator';

describe('normalizePhone', () => {
  it.each([
    ['(415) 555-2671', 'US', '+14155552671'],
    ['415.555.2671', 'US', '+14155552671'],
    ['415-555-2671', 'US', '+14155552671'],
    ['+1 415 555 2671', 'US', '+14155552671'],
    ['1 415 555 2671', 'US', '+14155552671'],
    ['+14155552671', 'GB', '+14155552671'],
    ['020 7946 0958', 'GB', '+442079460958'],
    ['+44 20 7946 0958', 'US', '+442079460958'],
    ['030 901820', 'DE', '+4930901820'],
    ['+33 1 23 45 67 89', 'US', '+33123456789'],
  ] as const)('reads %s in %s as %s', (raw, region, e164) => {
    expect(normalizePhone(raw, region)).toBe(e164);
  });

  it.each([
    ['12345', 'US'],
    ['555-1234', 'US'],
    ['020 7946 0958', 'US'],
    ['not a phone', 'US'],
    ['+999 123 456 789', 'US'],
    ['+1 415 555 26711234', 'US'],
  ] as const)('rejects %s in %s', (raw, region) => {
    expect(normalizePhone(raw, region)).toBeNull();
  });
});

describe('validateLead (docs/api.md#per-lead-validation)', () => {
  it('accepts a lead with only a phone', () => {
    expect(validateLead({ phone: '+14155552671' }, 'US')).toEqual({
      ok: true,
      lead: {
        phone: '+14155552671',
        email: null,
        first_name: null,
        last_name: null,
        company: null,
        title: null,
      },
    });
  });

  it('trims strings, stores blank optional strings as null and ignores unknown fields', () => {
    const check = validateLead(
      {
        phone: ' 415 555 2671 ',
        email: '  a@b.co ',
        first_name: '  ',
        last_name: ' Lee ',
        company: '',
        title: null,
        shoe_size: 9,
      },
      'US',
    );
    expect(check).toEqual({
      ok: true,
      lead: {
        phone: '+14155552671',
        email: 'a@b.co',
        first_name: null,
        last_name: 'Lee',
        company: null,
        title: null,
      },
    });
  });

  it.each([
    [{}, 'phone', 'phone is required'],
    [{ phone: null }, 'phone', 'phone is required'],
    [{ phone: '' }, 'phone', 'phone is required'],
    [{ phone: 4155552671 }, 'phone', 'phone must be a string'],
    [{ phone: 'abc' }, 'phone', 'phone is not a valid phone number'],
    [{ phone: '+14155552671', email: 'a@' }, 'email', 'email is not a valid email address'],
    [{ phone: '+14155552671', email: true }, 'email', 'email is not a valid email address'],
    [
      { phone: '+14155552671', first_name: 1 },
      'first_name',
      'first_name must be a string of at most 255 characters',
    ],
    [
      { phone: '+14155552671', last_name: 'x'.repeat(256) },
      'last_name',
      'last_name must be a string of at most 255 characters',
    ],
    [
      { phone: '+14155552671', company: {} },
      'company',
      'company must be a string of at most 255 characters',
    ],
    [
      { phone: '+14155552671', title: false },
      'title',
      'title must be a string of at most 255 characters',
    ],
  ])('reports %j as %s', (input, field, message) => {
    expect(validateLead(input, 'US')).toEqual({
      ok: false,
      problem: { var_field: field, message },
    });
  });

  it('reports only the first failing field in contract order', () => {
    const check = validateLead(
      { title: 1, company: 1, last_name: 1, first_name: 1, email: 'x', phone: 'x' },
      'US',
    );
    expect(check).toEqual({
      ok: false,
      problem: { var_field: 'phone', message: 'phone is not a valid phone number' },
    });
    const second = validateLead(
      { title: 1, company: 1, last_name: 1, first_name: 1, email: 'x', phone: '+14155552671' },
      'US',
    );
    expect(second.ok ? null : second.problem.var_field).toBe('email');
  });

  it('allows exactly 255 characters, counting code points', () => {
    expect(validateLead({ phone: '+14155552671', title: 'x'.repeat(255) }, 'US').ok).toBe(true);
    expect(validateLead({ phone: '+14155552671', title: '😀'.repeat(255) }, 'US').ok).toBe(true);
    expect(validateLead({ phone: '+14155552671', title: '😀'.repeat(256) }, 'US').ok).toBe(false);
  });
});

describe('validateLead: well-formed strings', () => {
  it('replaces lone surrogates with U+FFFD in every text field, as PostgreSQL stores them', () => {
    const check = validateLead(
      {
        phone: '+14155552671',
        first_name: 'A\ud800B',
        last_name: '\udc00',
        company: ' X\ud83d ',
        title: 'ok 😀',
      },
      'US',
    );
    expect(check).toEqual({
      ok: true,
      lead: {
        phone: '+14155552671',
        email: null,
        first_name: 'A\uFFFDB',
        last_name: '\uFFFD',
        company: 'X\uFFFD',
        title: 'ok 😀',
      },
    });
  });

  it('counts a lone surrogate as one character, like its replacement', () => {
    const name = 'x'.repeat(254) + '\ud800';
    const check = validateLead({ phone: '+14155552671', first_name: name }, 'US');
    expect(check.ok && check.lead.first_name).toBe('x'.repeat(254) + '\uFFFD');
  });

  it('still reports an email with a lone surrogate as invalid', () => {
    expect(validateLead({ phone: '+14155552671', email: 'a\ud800@example.com' }, 'US')).toEqual({
      ok: false,
      problem: { var_field: 'email', message: 'email is not a valid email address' },
    });
  });
});
