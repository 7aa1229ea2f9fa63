import { InvalidInputError } from '../common/domain-error';
import { isEventType } from './event-types.constants';
import {
  MAX_URL_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  THROTTLE_IN_FLIGHT_BOUNDS,
  THROTTLE_RATE_BOUNDS,
} from './endpoint-limits.constants';
import {
  DEFAULT_SIGNATURE_SCHEME,
  isSignatureScheme,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
} from './signature-schemes.constants';
import { ENDPOINT_ORDERINGS, type EndpointOrdering } from './webhook-endpoint.entity';

/**
 * Validates an endpoint URL and returns it normalised as WHATWG `URL.href` (lower-case scheme
 * and host, default port dropped, IDN host in punycode, path kept), which is what is stored,
 * listed and delivered to (docs/cli.md#commands).
 * @throws InvalidInputError (field `url`) unless `url` is an absolute http(s) URL without
 *   credentials, at most {@link MAX_URL_LENGTH} characters as typed and normalised.
 */
export function validateUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw InvalidInputError.field('url', `must be an absolute http or https URL, got "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw InvalidInputError.field(
      'url',
      `must use http or https, got "${parsed.protocol.replace(':', '')}"`,
    );
  }
  if (parsed.username || parsed.password)
    throw InvalidInputError.field('url', 'must not contain credentials');
  if (url.trim().length > MAX_URL_LENGTH || parsed.href.length > MAX_URL_LENGTH)
    throw InvalidInputError.field('url', `must be at most ${MAX_URL_LENGTH} characters`);
  return parsed.href;
}

/**
 * Trims and de-duplicates subscribed event types, keeping their first order.
 * @throws InvalidInputError (field `events`) for an empty list or an unknown type.
 */
export function validateEvents(events: string[]): string[] {
  const unique = [...new Set(events.map((e) => e.trim()).filter((e) => e !== ''))];
  if (unique.length === 0)
    throw InvalidInputError.field('events', 'must name at least one event type');
  const unknown = unique.filter((e) => !isEventType(e));
  if (unknown.length > 0)
    throw InvalidInputError.field('events', `has unknown event types: ${unknown.join(', ')}`);
  return unique;
}

/**
 * Trims a description; blank means none.
 * @throws InvalidInputError (field `description`) above {@link MAX_DESCRIPTION_LENGTH} characters.
 */
export function validateDescription(description: string | null): string | null {
  if (description === null || description.trim() === '') return null;
  if (description.length > MAX_DESCRIPTION_LENGTH)
    throw InvalidInputError.field(
      'description',
      `must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
    );
  return description.trim();
}

/**
 * An endpoint's signature scheme as given, `symmetric` when not given
 * (docs/webhooks.md#signing).
 * @throws InvalidInputError (field `signature_scheme`) for anything but `symmetric` or
 *   `asymmetric`.
 */
export function validateSignatureScheme(scheme: unknown): SignatureScheme {
  if (scheme === undefined || scheme === null) return DEFAULT_SIGNATURE_SCHEME;
  if (!isSignatureScheme(scheme))
    throw InvalidInputError.field(
      'signature_scheme',
      `must be one of ${SIGNATURE_SCHEMES.join(', ')}, got "${String(scheme)}"`,
    );
  return scheme;
}

/**
 * Checks one limit of an endpoint's throttle (docs/webhooks.md#throttling): a whole number
 * within its bounds, or null for unlimited.
 * @param field `max_deliveries_per_second` (1 to 1,000) or `max_in_flight` (1 to 100).
 * @throws InvalidInputError (that field) for anything else.
 */
export function validateThrottleLimit(
  field: 'max_deliveries_per_second' | 'max_in_flight',
  value: unknown,
): number | null {
  if (value === null) return null;
  const { min, max } = field === 'max_in_flight' ? THROTTLE_IN_FLIGHT_BOUNDS : THROTTLE_RATE_BOUNDS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw InvalidInputError.field(
      field,
      `must be a whole number from ${min} to ${max.toLocaleString('en')}, or null for no limit`,
    );
  }
  return value;
}

/**
 * An endpoint's `ordering` as given (docs/webhooks.md#per-lead-ordering), `none` when not given.
 * @throws InvalidInputError (field `ordering`) for anything but `none` or `per_lead`.
 */
export function validateOrdering(ordering: unknown): EndpointOrdering {
  if (ordering === undefined || ordering === null) return 'none';
  if (!(ENDPOINT_ORDERINGS as readonly unknown[]).includes(ordering))
    throw InvalidInputError.field(
      'ordering',
      `must be one of ${ENDPOINT_ORDERINGS.join(', ')}, got "${String(ordering)}"`,
    );
  return ordering as EndpointOrdering;
}
