import { Button } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconMapOff } from '@tabler/icons-react';
import { Link } from 'react-router';
import { EmptyPanel } from '../../components/ui/page-states';
import { HOME_PATH } from '../../lib/auth-guard';
import { pageTitle } from '../page-title';

/** Any other URL under `/dashboard/` once signed in. */
export function NotFoundRoute() {
  useDocumentTitle(pageTitle('Page not found'));
  return (
    <EmptyPanel
      title="Page not found"
      description="There is no dashboard page at this address. It may have moved, or the link is mistyped."
      icon={<IconMapOff size={28} aria-hidden />}
      order={1}
    >
      <Button component={Link} to={HOME_PATH} variant="light">
        Go to your campaigns
      </Button>
    </EmptyPanel>
  );
}
