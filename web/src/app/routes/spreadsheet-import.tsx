import { useDocumentTitle } from '@mantine/hooks';
import { useParams } from 'react-router';
import { SpreadsheetImportPage } from '../../features/imports/components/spreadsheet-import-page';
import { SpreadsheetUploadPage } from '../../features/imports/components/spreadsheet-upload-page';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { CAMPAIGN_NOT_FOUND, CampaignGate } from './campaign-gate';
import { NotFoundRoute } from './not-found';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `/dashboard/campaigns/:campaignId/import`: upload a spreadsheet into the campaign. */
export function SpreadsheetUploadRoute() {
  useDocumentTitle(pageTitle('Import a spreadsheet'));
  const campaignId = useIdParam('campaignId');
  if (campaignId === null) return <NotFoundRoute text={CAMPAIGN_NOT_FOUND} />;
  return (
    <CampaignGate key={campaignId} campaignId={campaignId}>
      {(campaign) => <SpreadsheetUploadPage campaign={campaign} />}
    </CampaignGate>
  );
}

/** `/dashboard/spreadsheet-imports/:importId`: map, review, start and follow one import. */
export function SpreadsheetImportRoute() {
  useDocumentTitle(pageTitle('Spreadsheet import'));
  const importId = useParams().importId ?? '';
  if (!UUID.test(importId)) return <NotFoundRoute />;
  return <SpreadsheetImportPage key={importId} importId={importId} />;
}
