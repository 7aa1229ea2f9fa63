import { useDocumentTitle } from '@mantine/hooks';
import { useParams } from 'react-router';
import { ImportPage } from '../../features/imports/components/import-page';
import { pageTitle } from '../page-title';
import { NotFoundRoute } from './not-found';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `/dashboard/imports/:importId`. */
export function ImportRoute() {
  useDocumentTitle(pageTitle('Import'));
  const importId = useParams().importId ?? '';
  if (!UUID.test(importId)) return <NotFoundRoute />;
  return <ImportPage key={importId} importId={importId} />;
}
