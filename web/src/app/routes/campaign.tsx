import { Stack } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { CampaignPage } from '../../features/campaigns/components/campaign-page';
import { LeadSearch } from '../../features/campaigns/components/lead-search';
import { ImportHistory } from '../../features/imports/components/import-history';
import { SpreadsheetImportList } from '../../features/imports/components/spreadsheet-import-list';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { NotFoundRoute } from './not-found';

/**
 * `/dashboard/campaigns/:campaignId`: the campaign's endpoints, its lead search, its
 * spreadsheet imports, then its import history.
 */
export function CampaignRoute() {
  useDocumentTitle(pageTitle('Campaign'));
  const campaignId = useIdParam('campaignId');
  if (campaignId === null) return <NotFoundRoute />;
  return (
    <>
      <CampaignPage key={campaignId} campaignId={campaignId} />
      <LeadSearch key={`leads-${campaignId}`} campaignId={campaignId} />
      <Stack mt="xl" gap="xl">
        <SpreadsheetImportList key={`spreadsheets-${campaignId}`} campaignId={campaignId} />
        <ImportHistory key={`imports-${campaignId}`} campaignId={campaignId} />
      </Stack>
    </>
  );
}
