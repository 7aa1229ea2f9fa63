import { useDocumentTitle } from '@mantine/hooks';
import { PortalOriginSettings } from '../../features/account/components/portal-origin-settings';
import { pageTitle } from '../page-title';

/** `/dashboard/settings/portal`. */
export function PortalSettingsRoute() {
  useDocumentTitle(pageTitle('Embedded portal'));
  return <PortalOriginSettings />;
}
