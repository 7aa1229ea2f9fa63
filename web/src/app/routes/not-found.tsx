import { useDocumentTitle } from '@mantine/hooks';
import { NotFoundPage, PAGE_NOT_FOUND, type NotFoundText } from '../../components/ui/page-states';
import { pageTitle } from '../page-title';

/**
 * Any other URL under `/dashboard/` once signed in, and an id the service does not know for
 * this account (`text` then names what was not found).
 */
export function NotFoundRoute({ text = PAGE_NOT_FOUND }: { text?: NotFoundText }) {
  useDocumentTitle(pageTitle(text.title));
  return <NotFoundPage {...text} />;
}
