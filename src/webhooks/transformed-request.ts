import { InvalidInputError } from '../common/domain-error';
import type { TransformationInput } from '../transformations';
import { checkTransformedHeaders, type CustomHeaderToSend } from './custom-headers';
import { validateUrl } from './endpoint-input';

/** The parts of a transformation's result the endpoint rules check. */
export interface TransformedTarget {
  url: string;
  headers: Record<string, string>;
}

/** A transformation's URL and headers once they passed the endpoint rules. */
export interface CheckedTransformedTarget {
  /** Normalised as an endpoint URL is ({@link validateUrl}). */
  url: string;
  /** To add to the request, in the order returned; none of them secret. */
  headers: CustomHeaderToSend[];
  /** The `content-type` the transformation set, if any. */
  contentType: string | null;
}

/**
 * Holds a transformation's URL and headers to the rules an endpoint's own are held to
 * (docs/webhooks.md#transformations): an absolute http(s) URL without credentials, at most
 * 2,048 characters; the custom-header rules for every header but `content-type`. The address
 * policy and the outbound proxy apply when it is sent, as to any endpoint URL.
 * @returns the checked URL and headers; or, when one is refused, the reason as one line
 *   naming the field (`url …`, `header "x-y" …`).
 */
export function checkTransformedTarget(
  target: TransformedTarget,
): CheckedTransformedTarget | { problem: string } {
  try {
    const url = validateUrl(target.url);
    const { headers, contentType } = checkTransformedHeaders(target.headers);
    return { url, headers, contentType };
  } catch (error) {
    if (error instanceof InvalidInputError) {
      return { problem: error.message };
    }
    throw error;
  }
}

/**
 * The input an endpoint's transformation is given for one message
 * (docs/webhooks.md#transformations): `{method: 'POST', url, headers, payload, event_type}`,
 * `headers` being the endpoint's plain custom headers (never a secret one's value: those are
 * added to the request after the transformation), `payload` the message's JSON body.
 */
export function transformationInput(
  endpoint: {
    url: string;
    headers: ReadonlyArray<{ name: string; value: string; secret: boolean }>;
  },
  eventType: string,
  body: string,
): TransformationInput {
  const headers = Object.create(null) as Record<string, string>;
  for (const header of endpoint.headers) if (!header.secret) headers[header.name] = header.value;
  return { method: 'POST', url: endpoint.url, headers, payloadJson: body, eventType };
}
