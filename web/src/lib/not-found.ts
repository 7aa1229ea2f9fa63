import type { NotFoundText } from '../components/ui/page-states';

/** What the not-found page says for an endpoint id the account does not have. */
export const ENDPOINT_NOT_FOUND: NotFoundText = {
  title: 'Endpoint not found',
  description:
    'Your account has no webhook endpoint at this address. It may have been deleted, or the link is mistyped.',
};
