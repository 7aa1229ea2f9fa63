import { useDocumentTitle } from '@mantine/hooks';
import { EndpointPage } from '../../features/campaigns/components/endpoint-page';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { NotFoundRoute } from './not-found';

/** `/dashboard/endpoints/:endpointId`. */
export function EndpointRoute() {
  useDocumentTitle(pageTitle('Endpoint'));
  const endpointId = useIdParam('endpointId');
  if (endpointId === null) return <NotFoundRoute />;
  return <EndpointPage key={endpointId} endpointId={endpointId} />;
}
