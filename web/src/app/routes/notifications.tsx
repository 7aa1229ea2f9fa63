import { useDocumentTitle } from '@mantine/hooks';
import { NotificationSettings } from '../../features/account/components/notification-settings';
import { pageTitle } from '../page-title';

/** `/dashboard/settings/notifications`. */
export function NotificationsRoute() {
  useDocumentTitle(pageTitle('Notifications'));
  return <NotificationSettings />;
}
