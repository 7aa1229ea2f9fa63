import { createHash, randomBytes } from 'node:crypto';
import { PORTAL_LINK_SECRET_PREFIX, PORTAL_SESSION_TOKEN_PREFIX } from '../common/secret-prefixes';

/** A link's secret or a session's token: its prefix and 32 random bytes in base64url. */
const SECRET_SHAPE = /^(cpl|cps)_[A-Za-z0-9_-]{43}$/;

/** A UUID, as a portal link's id is written. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new portal link secret (docs/security.md#embedded-portal): `cpl_` + 256 random bits. */
export function generateLinkSecret(): string {
  return PORTAL_LINK_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** A new embedded session token (docs/security.md#embedded-portal): `cps_` + 256 random bits. */
export function generatePortalSessionToken(): string {
  return PORTAL_SESSION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Whether `value` has the shape of a link secret (`cpl_…`); anything else is not looked up. */
export function isLinkSecretShaped(value: unknown): value is string {
  return typeof value === 'string' && SECRET_SHAPE.test(value) && value.startsWith('cpl_');
}

/** Whether `value` has the shape of a portal session token (`cps_…`). */
export function isPortalSessionTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && SECRET_SHAPE.test(value) && value.startsWith('cps_');
}

/** Whether `value` is a UUID (a portal link's id); anything else names no link. */
export function isPortalLinkId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Lower-case hex SHA-256 of a link secret or session token, the only form stored: each is 256
 * random bits, so a plain hash (no salt, no stretching) is enough.
 */
export function hashPortalSecret(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
