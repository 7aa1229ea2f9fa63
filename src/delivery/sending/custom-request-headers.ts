import type { CustomHeaderToSend } from '../../webhooks';
import { headerRecord, type SignedRequest } from './webhook.sender';

/** What the delivery log shows instead of a secret custom header's value. */
export const REDACTED_HEADER_VALUE = '[redacted]';

/**
 * `signed` with the endpoint's custom headers added after the signature headers, in their
 * order and with their names as given (docs/webhooks.md#custom-headers). They are not signed:
 * Standard Webhooks signs the id, timestamp and body only. The names never collide with the
 * service's own headers: the endpoint refused them when they were set. Built on a record with
 * no prototype, so a header named `__proto__` or `constructor` is sent like any other.
 */
export function withCustomHeaders(
  signed: SignedRequest,
  headers: readonly CustomHeaderToSend[],
): SignedRequest {
  if (headers.length === 0) return signed;
  const all = Object.assign(headerRecord(), signed.headers);
  for (const header of headers) all[header.name] = header.value;
  return { ...signed, headers: all };
}

/**
 * The logged headers of a request (`loggedHeaders`) with the value of each secret custom
 * header replaced by {@link REDACTED_HEADER_VALUE}: the delivery log, the attempt detail and
 * everything that reads them never hold a secret header's value
 * (docs/dashboard.md#attempt-detail). `logged` itself when no header is secret: most endpoints
 * have none, and the copy cost every delivery's attempt.
 */
export function redactSecretHeaders(
  logged: Record<string, string>,
  headers: readonly CustomHeaderToSend[],
): Record<string, string> {
  if (!headers.some((header) => header.secret)) return logged;
  const redacted = Object.assign(headerRecord(), logged);
  for (const header of headers) {
    if (header.secret && Object.hasOwn(redacted, header.name)) {
      redacted[header.name] = REDACTED_HEADER_VALUE;
    }
  }
  return redacted;
}
