import { useDocumentTitle } from '@mantine/hooks';
import { PrivacyOverview } from '../../features/privacy/components/privacy-overview';
import { pageTitle } from '../page-title';

/** `/dashboard/privacy`: admins only (a viewer is told so). */
export function PrivacyRoute() {
  useDocumentTitle(pageTitle('Privacy'));
  return <PrivacyOverview />;
}
