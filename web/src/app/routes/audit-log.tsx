import { useDocumentTitle } from '@mantine/hooks';
import { AuditLogOverview } from '../../features/audit/components/audit-log-overview';
import { pageTitle } from '../page-title';

/** `/dashboard/audit-log`. */
export function AuditLogRoute() {
  useDocumentTitle(pageTitle('Audit log'));
  return <AuditLogOverview />;
}
