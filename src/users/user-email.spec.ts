import { emailKey, normaliseEmail } from './user-email';

describe('dashboard user emails (docs/dashboard.md#users-and-roles)', () => {
  it('are trimmed, keep their case, and compare case-insensitively', () => {
    expect(normaliseEmail('  Ops@Acme.Example ')).toBe('Ops@Acme.Example');
    expect(emailKey(' Ops@Acme.Example')).toBe('ops@acme.example');
  });

  it.each(['', 'ops', 'ops@', '@acme.example', 'ops@acme', `${'a'.repeat(310)}@acme.example`])(
    'refuses %j naming the field',
    (email) => {
      expect(() => normaliseEmail(email)).toThrow(/^email must be a valid email address/);
    },
  );
});
