import { useDocumentTitle } from '@mantine/hooks';
import { NewEndpointPage } from '../../features/endpoints/components/new-endpoint-page';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { CAMPAIGN_NOT_FOUND, CampaignGate } from './campaign-gate';
import { NotFoundRoute } from './not-found';

/** `/dashboard/campaigns/:campaignId/endpoints/new`. */
export function NewEndpointRoute() {
  useDocumentTitle(pageTitle('Add endpoint'));
  const campaignId = useIdParam('campaignId');
  if (campaignId === null) return <NotFoundRoute text={CAMPAIGN_NOT_FOUND} />;
  return (
    <CampaignGate key={campaignId} campaignId={campaignId}>
      {(campaign) => <NewEndpointPage campaign={campaign} />}
    </CampaignGate>
  );
}
