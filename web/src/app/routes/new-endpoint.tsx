import { useDocumentTitle } from '@mantine/hooks';
import { NewEndpointPage } from '../../features/campaigns/components/new-endpoint-page';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { NotFoundRoute } from './not-found';

/** `/dashboard/campaigns/:campaignId/endpoints/new`. */
export function NewEndpointRoute() {
  useDocumentTitle(pageTitle('Add endpoint'));
  const campaignId = useIdParam('campaignId');
  if (campaignId === null) return <NotFoundRoute />;
  return <NewEndpointPage key={campaignId} campaignId={campaignId} />;
}
