/**
 * What is wrong with `url` as a URL the service POSTs to (an endpoint's, the account's
 * notification URL), checked in the browser before it is sent: blank, not a whole URL, or a
 * scheme other than http and https; `example` is the URL the messages quote. Null when it may be
 * sent; the service still applies its own rules (docs/security.md#webhook-destinations).
 */
export function urlProblem(url: string, example = 'https://example.com/webhooks'): string | null {
  const value = url.trim();
  if (value === '') return `Enter the URL the events are sent to, e.g. ${example}`;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return `Enter a whole URL, starting with https:// (or http://), e.g. ${example}`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return `The URL must start with https:// or http://, not ${parsed.protocol}`;
  }
  if (!parsed.hostname) return `The URL needs a host, e.g. ${example}`;
  return null;
}
