import {
  dummyPasswordHash,
  generatePassword,
  hashPassword,
  validatePassword,
  verifyPassword,
} from './passwords';

describe('dashboard passwords (docs/dashboard.md#users-and-roles)', () => {
  it('have at least 12 characters, counted in code points', () => {
    expect(validatePassword('123456789012')).toBe('123456789012');
    expect(() => validatePassword('12345678901')).toThrow('password must be 12 to 1024 characters');
    expect(() => validatePassword('😀'.repeat(11))).toThrow('password must be');
    expect(validatePassword('😀'.repeat(12))).toHaveLength(24);
    expect(() => validatePassword('x'.repeat(1025))).toThrow('password must be');
  });

  it('are generated with 24 random base64url characters', () => {
    const password = generatePassword();
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(generatePassword()).not.toBe(password);
  });

  it('are stored as argon2id and verified against it', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(hash).not.toContain('correct horse');
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse batterY')).toBe(false);
    expect(await verifyPassword('not a hash', 'correct horse battery')).toBe(false);
    expect(await dummyPasswordHash()).toMatch(/^\$argon2id\$/);
    expect(await dummyPasswordHash()).toBe(await dummyPasswordHash());
  });
});
