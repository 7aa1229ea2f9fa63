/** The example origin the portal origins form quotes. */
export const EXAMPLE_ORIGIN = 'https://app.example.com';

/** Whether `hostname` (as `URL` writes it) names the loopback interface. */
function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * An origin typed into the portal origins form, checked in the browser the way the service
 * checks it (docs/dashboard.md#embedding-the-portal, `checkedPortalOrigin` on the server):
 * `https://host[:port]`, or `http://` only for `localhost`, `127.0.0.0/8` and `[::1]`; no path,
 * query, fragment, user or wildcard. The service still checks it and says why it refuses.
 * @param value what was typed (surrounding spaces are dropped).
 * @returns `{origin}` as browsers write it (lower-case host, default port dropped), or
 *   `{problem}` in words.
 */
export function checkedOrigin(value: string): { origin: string } | { problem: string } {
  const typed = value.trim();
  if (typed === '') return { problem: `Enter an origin, e.g. ${EXAMPLE_ORIGIN}` };
  let url: URL;
  try {
    url = new URL(typed);
  } catch {
    return { problem: `Enter an origin such as ${EXAMPLE_ORIGIN}` };
  }
  const extra =
    url.pathname !== '/' || /[?#@*]/.test(typed) || url.username !== '' || url.password !== '';
  if (extra || !/^[a-z]+:\/\/[^/]+\/?$/i.test(typed)) {
    return {
      problem: `Only the scheme, host and port, without a path, query or wildcard, e.g. ${EXAMPLE_ORIGIN}`,
    };
  }
  if (url.protocol === 'https:') return { origin: url.origin };
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return { origin: url.origin };
  return { problem: 'The origin must use https:// (http:// only for localhost and 127.0.0.0/8)' };
}
