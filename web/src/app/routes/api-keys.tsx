import { useDocumentTitle } from '@mantine/hooks';
import { ApiKeysOverview } from '../../features/api-keys/components/api-keys-overview';
import { pageTitle } from '../page-title';

/** `/dashboard/api-keys`. */
export function ApiKeysRoute() {
  useDocumentTitle(pageTitle('API keys'));
  return <ApiKeysOverview />;
}
