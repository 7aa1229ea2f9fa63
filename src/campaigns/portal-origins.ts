import { isIP } from 'node:net';
import { InvalidInputError } from '../common/domain-error';

/** The most portal origins an account may register (docs/dashboard.md#embedding-the-portal). */
export const PORTAL_ORIGINS_MAX = 10;

/** Whether `hostname` (as `URL` writes it) names the loopback interface. */
function isLoopback(hostname: string): boolean {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/**
 * One origin allowed to frame an account's portal (docs/dashboard.md#embedding-the-portal):
 * `https://host[:port]`, or `http://` only for a loopback host (`localhost`, `127.0.0.0/8`,
 * `[::1]`: local development and tests). No path, query, fragment, user or wildcard.
 * @returns the origin as browsers write it (`URL.origin`: lower-case host, default port dropped).
 * @throws InvalidInputError (field `origins`) naming what is wrong.
 */
export function checkedPortalOrigin(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 300) {
    throw InvalidInputError.field('origins', 'each origin must be a string of 1 to 300 characters');
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw InvalidInputError.field(
      'origins',
      `"${value}" is not an origin such as https://app.example.com`,
    );
  }
  const extra =
    url.pathname !== '/' || /[?#@*]/.test(value) || url.username !== '' || url.password !== '';
  if (extra || !/^[a-z]+:\/\/[^/]+\/?$/i.test(value)) {
    throw InvalidInputError.field(
      'origins',
      `"${value}" must be an origin only (scheme, host and port), without path, query or user`,
    );
  }
  if (url.protocol === 'https:') return url.origin;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url.origin;
  throw InvalidInputError.field(
    'origins',
    `"${value}" must use https (http only for localhost and 127.0.0.0/8)`,
  );
}

/**
 * A whole list of portal origins, each checked by {@link checkedPortalOrigin}, duplicates
 * dropped, in the order given.
 * @throws InvalidInputError (field `origins`) for a list that is not an array, is longer than
 *   {@link PORTAL_ORIGINS_MAX}, or holds a bad origin.
 */
export function checkedPortalOrigins(value: unknown): string[] {
  if (!Array.isArray(value))
    throw InvalidInputError.field('origins', 'must be an array of origins');
  const origins = [...new Set(value.map(checkedPortalOrigin))];
  if (origins.length > PORTAL_ORIGINS_MAX) {
    throw InvalidInputError.field('origins', `may hold at most ${PORTAL_ORIGINS_MAX} origins`);
  }
  return origins;
}
