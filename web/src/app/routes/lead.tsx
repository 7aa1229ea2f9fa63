import { useDocumentTitle } from '@mantine/hooks';
import { LeadPage } from '../../features/leads/components/lead-page';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { NotFoundRoute } from './not-found';

/** `/dashboard/leads/:leadId`. */
export function LeadRoute() {
  useDocumentTitle(pageTitle('Lead'));
  const leadId = useIdParam('leadId');
  if (leadId === null) return <NotFoundRoute />;
  return <LeadPage key={leadId} leadId={leadId} />;
}
