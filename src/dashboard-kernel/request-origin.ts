/** Methods that change state and so must pass the CSRF rules (docs/dashboard.md#cross-site-request-forgery). */
export const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set([
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
]);

/** The parts of a request the origin rule reads. */
export interface OriginHeaders {
  origin?: string | string[];
  'sec-fetch-site'?: string | string[];
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** `scheme://host[:port]` of a URL, normalised (lower case, default port dropped), or null. */
function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

/**
 * The first rule of docs/dashboard.md#cross-site-request-forgery: a state-changing request must
 * come from the dashboard's own origin. `Origin`, when present, must equal `serviceOrigin`
 * (`null`, as sent by sandboxed frames and `file:` pages, never does), and `Sec-Fetch-Site`,
 * when present, must be `same-origin`.
 * @param serviceOrigin how this request reached the service: its scheme and `Host`.
 * @returns why the request is refused, or null when it passes.
 */
export function crossOriginProblem(headers: OriginHeaders, serviceOrigin: string): string | null {
  const fetchSite = single(headers['sec-fetch-site']);
  if (fetchSite !== undefined && fetchSite.trim().toLowerCase() !== 'same-origin') {
    return `The request must come from the dashboard itself (Sec-Fetch-Site is ${fetchSite.trim()})`;
  }
  const origin = single(headers.origin);
  if (origin !== undefined) {
    const expected = originOf(serviceOrigin);
    if (expected === null || originOf(origin.trim()) !== expected) {
      return `The request must come from the dashboard's own origin (${expected ?? serviceOrigin})`;
    }
  }
  return null;
}
