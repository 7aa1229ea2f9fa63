import { useDocumentTitle } from '@mantine/hooks';
import { CampaignsOverview } from '../../features/campaigns/components/campaigns-overview';
import { pageTitle } from '../page-title';

/** `/dashboard/campaigns`. */
export function CampaignsRoute() {
  useDocumentTitle(pageTitle('Campaigns'));
  return <CampaignsOverview />;
}
