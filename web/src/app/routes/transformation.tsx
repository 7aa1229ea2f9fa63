import { useDocumentTitle } from '@mantine/hooks';
import { TransformationPage } from '../../features/transformations/components/transformation-page';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { NotFoundRoute } from './not-found';

/** `/dashboard/endpoints/:endpointId/transformation` (loaded on demand, with CodeMirror). */
export function TransformationRoute() {
  useDocumentTitle(pageTitle('Transformation'));
  const endpointId = useIdParam('endpointId');
  if (endpointId === null) return <NotFoundRoute />;
  return <TransformationPage key={endpointId} endpointId={endpointId} />;
}
