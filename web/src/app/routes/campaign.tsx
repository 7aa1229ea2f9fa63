import { Stack } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { CampaignPage } from '../../features/campaigns/components/campaign-page';
import { LeadSearch } from '../../features/leads/components/lead-search';
import { ImportHistory } from '../../features/imports/components/import-history';
import { SpreadsheetImportList } from '../../features/imports/components/spreadsheet-import-list';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { CAMPAIGN_NOT_FOUND, CampaignGate } from './campaign-gate';
import { NotFoundRoute } from './not-found';

/**
 * `/dashboard/campaigns/:campaignId`: the campaign's endpoints, its lead search, its
 * spreadsheet imports, then its import history; the not-found page for a campaign the account
 * does not have.
 */
export function CampaignRoute() {
  useDocumentTitle(pageTitle('Campaign'));
  const campaignId = useIdParam('campaignId');
  if (campaignId === null) return <NotFoundRoute text={CAMPAIGN_NOT_FOUND} />;
  return (
    <CampaignGate key={campaignId} campaignId={campaignId}>
      {(campaign) => (
        <>
          <CampaignPage campaign={campaign} />
          <LeadSearch campaignId={campaign.id} />
          <Stack mt="xl" gap="xl">
            <SpreadsheetImportList campaignId={campaign.id} />
            <ImportHistory campaignId={campaign.id} />
          </Stack>
        </>
      )}
    </CampaignGate>
  );
}
