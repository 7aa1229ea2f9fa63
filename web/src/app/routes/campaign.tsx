import { useDocumentTitle } from '@mantine/hooks';
import { CampaignPage } from '../../features/campaigns/components/campaign-page';
import { LeadSearch } from '../../features/campaigns/components/lead-search';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { NotFoundRoute } from './not-found';

/** `/dashboard/campaigns/:campaignId`: the campaign's endpoints, then its lead search. */
export function CampaignRoute() {
  useDocumentTitle(pageTitle('Campaign'));
  const campaignId = useIdParam('campaignId');
  if (campaignId === null) return <NotFoundRoute />;
  return (
    <>
      <CampaignPage key={campaignId} campaignId={campaignId} />
      <LeadSearch key={`leads-${campaignId}`} campaignId={campaignId} />
    </>
  );
}
