/**
 * The dashboard's session cookie (docs/dashboard.md#sessions), written and read here. One cookie
 * with a fixed name and a base64url value needs no encoding, so this small, strict code stands
 * in for a cookie library: the `cookie` package in node_modules is only a transitive, ESM-only
 * dependency that this CommonJS build cannot type-check or load under Jest on Node 22.
 */

/** Name of the dashboard's session cookie (docs/dashboard.md#sessions). */
export const SESSION_COOKIE_NAME = 'campaign_api_session';
/** The cookie's path: the browser app and its API, nothing else of the service. */
export const SESSION_COOKIE_PATH = '/dashboard';

/** A session token's characters (base64url); anything else is never written into a cookie. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]*$/;

function attributes(insecure: boolean): string {
  return `Path=${SESSION_COOKIE_PATH}; HttpOnly; SameSite=Lax${insecure ? '' : '; Secure'}`;
}

/**
 * The `Set-Cookie` value that stores session `token` (docs/dashboard.md#sessions): `HttpOnly`
 * (no script reads it), `SameSite=Lax`, `Path=/dashboard`, and `Secure` unless `insecure`
 * (`DASHBOARD_INSECURE_COOKIES=true`, plain-HTTP local use). No `Max-Age`: the browser drops it
 * when it closes, and the server ends the session after 30 idle minutes or 12 hours anyway.
 * @throws Error when `token` is not base64url (a programming error).
 */
export function sessionCookie(token: string, insecure: boolean): string {
  if (token === '' || !COOKIE_VALUE.test(token)) throw new Error('not a session token');
  return `${SESSION_COOKIE_NAME}=${token}; ${attributes(insecure)}`;
}

/** The `Set-Cookie` value that makes the browser forget the session cookie. */
export function clearedSessionCookie(insecure: boolean): string {
  return `${SESSION_COOKIE_NAME}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${attributes(insecure)}`;
}

/**
 * The session cookie's value in a `Cookie` request header (RFC 6265 §4.2: `name=value` pairs
 * separated by `; `), or undefined when it is absent. The first one counts when a browser sends
 * several (the one with the longest path comes first).
 */
export function readSessionCookie(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const pair of cookieHeader.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0) continue;
    if (pair.slice(0, separator).trim() !== SESSION_COOKIE_NAME) continue;
    let value = pair.slice(separator + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1);
    return value;
  }
  return undefined;
}
