import { useDocumentTitle } from '@mantine/hooks';
import {
  CampaignChartsPage,
  EndpointChartsPage,
} from '../../features/deliveries/components/charts-page';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { CAMPAIGN_NOT_FOUND, CampaignGate } from './campaign-gate';
import { NotFoundRoute } from './not-found';

/** `/dashboard/endpoints/:endpointId/charts` (loaded on demand: the chart library is large). */
export function EndpointChartsRoute() {
  useDocumentTitle(pageTitle('Endpoint charts'));
  const endpointId = useIdParam('endpointId');
  if (endpointId === null) return <NotFoundRoute />;
  return <EndpointChartsPage key={endpointId} endpointId={endpointId} />;
}

/** `/dashboard/campaigns/:campaignId/charts`. */
export function CampaignChartsRoute() {
  useDocumentTitle(pageTitle('Campaign charts'));
  const campaignId = useIdParam('campaignId');
  if (campaignId === null) return <NotFoundRoute text={CAMPAIGN_NOT_FOUND} />;
  return (
    <CampaignGate key={campaignId} campaignId={campaignId}>
      {(campaign) => <CampaignChartsPage campaign={campaign} />}
    </CampaignGate>
  );
}
