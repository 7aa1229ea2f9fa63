import {
  csrfTokenFor,
  csrfTokenMatches,
  generateSessionToken,
  hashSessionToken,
  isSessionTokenShaped,
  SESSION_IDLE_TIMEOUT_MS,
  SESSION_MAX_LIFETIME_MS,
  sessionTimeState,
  shouldTouch,
} from './session-tokens';

describe('session tokens (docs/dashboard.md#sessions)', () => {
  it('are 256 random bits in base64url, stored only as their SHA-256', () => {
    const token = generateSessionToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(generateSessionToken()).not.toBe(token);
    expect(isSessionTokenShaped(token)).toBe(true);
    expect(isSessionTokenShaped(`${token}x`)).toBe(false);
    expect(isSessionTokenShaped('')).toBe(false);
    expect(hashSessionToken('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('derive a CSRF token per session, compared exactly', () => {
    const token = generateSessionToken();
    const csrf = csrfTokenFor(token);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrf).not.toBe(token);
    expect(csrfTokenFor(token)).toBe(csrf);
    expect(csrfTokenFor(generateSessionToken())).not.toBe(csrf);
    expect(csrfTokenMatches(token, csrf)).toBe(true);
    expect(csrfTokenMatches(token, undefined)).toBe(false);
    expect(csrfTokenMatches(token, '')).toBe(false);
    expect(csrfTokenMatches(token, `${csrf}x`)).toBe(false);
    expect(csrfTokenMatches(token, csrf.toUpperCase())).toBe(false);
    expect(csrfTokenMatches(token, 'sign-in')).toBe(false);
  });

  it('expire after 30 idle minutes or 12 hours, whichever comes first', () => {
    const start = new Date('2026-01-01T00:00:00Z');
    const at = (ms: number) => new Date(start.getTime() + ms);
    const fresh = { lastSeenAt: start, expiresAt: at(SESSION_MAX_LIFETIME_MS) };
    expect(sessionTimeState(fresh, start)).toBe('active');
    expect(sessionTimeState(fresh, at(SESSION_IDLE_TIMEOUT_MS - 1))).toBe('active');
    expect(sessionTimeState(fresh, at(SESSION_IDLE_TIMEOUT_MS))).toBe('idle');
    const busy = { lastSeenAt: at(SESSION_MAX_LIFETIME_MS - 1000), expiresAt: fresh.expiresAt };
    expect(sessionTimeState(busy, at(SESSION_MAX_LIFETIME_MS - 1))).toBe('active');
    expect(sessionTimeState(busy, at(SESSION_MAX_LIFETIME_MS))).toBe('expired');
  });

  it('write last_seen_at at most once a minute', () => {
    const seen = new Date('2026-01-01T00:00:00Z');
    expect(shouldTouch(seen, new Date(seen.getTime() + 59_999))).toBe(false);
    expect(shouldTouch(seen, new Date(seen.getTime() + 60_000))).toBe(true);
  });
});
