import { useDocumentTitle } from '@mantine/hooks';
import { EditEndpointPage } from '../../features/endpoints/components/edit-endpoint-page';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { NotFoundRoute } from './not-found';

/** `/dashboard/endpoints/:endpointId/edit`. */
export function EditEndpointRoute() {
  useDocumentTitle(pageTitle('Edit endpoint'));
  const endpointId = useIdParam('endpointId');
  if (endpointId === null) return <NotFoundRoute />;
  return <EditEndpointPage key={endpointId} endpointId={endpointId} />;
}
