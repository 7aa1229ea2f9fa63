import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a session lives without a request (docs/dashboard.md#sessions): 30 minutes. */
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** How long a session lives at most after sign-in (docs/dashboard.md#sessions): 12 hours. */
export const SESSION_MAX_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** `last_seen_at` is written at most this often per session. */
export const SESSION_TOUCH_INTERVAL_MS = 60 * 1000;

/** A session token's shape: 32 random bytes in base64url (43 characters). */
const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new session token: 256 random bits in base64url, the value of the session cookie. */
export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `value` has the shape of a session token (anything else is not looked up). */
export function isSessionTokenShaped(value: string): boolean {
  return SESSION_TOKEN_PATTERN.test(value);
}

/** Lower-case hex SHA-256 of a session token, the only form in which it is stored. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The CSRF token of a session (docs/dashboard.md#cross-site-request-forgery): an HMAC-SHA256
 * keyed with the session token, in base64url. Only the holder of the session cookie can
 * compute it (the cookie is HttpOnly; the database holds only the token's hash), it changes
 * with every session, and nothing about it needs storing.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('dashboard-csrf-v1').digest('base64url');
}

/** Whether `presented` is the CSRF token of `sessionToken`, compared in constant time. */
export function csrfTokenMatches(sessionToken: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What a session's times say at `now`. */
export type SessionTimeState = 'active' | 'idle' | 'expired';

/**
 * Whether a session is still valid at `now` (docs/dashboard.md#sessions): `expired` from
 * `expiresAt` on (12 hours after sign-in), `idle` once {@link SESSION_IDLE_TIMEOUT_MS} have
 * passed since `lastSeenAt`, else `active`.
 */
export function sessionTimeState(
  session: { lastSeenAt: Date; expiresAt: Date },
  now: Date,
): SessionTimeState {
  if (now.getTime() >= session.expiresAt.getTime()) return 'expired';
  if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_IDLE_TIMEOUT_MS) return 'idle';
  return 'active';
}

/** Whether a request at `now` should write `last_seen_at` (at most once a minute). */
export function shouldTouch(lastSeenAt: Date, now: Date): boolean {
  return now.getTime() - lastSeenAt.getTime() >= SESSION_TOUCH_INTERVAL_MS;
}
