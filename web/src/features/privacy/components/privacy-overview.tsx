import { Alert, Stack } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { PageHeader } from '../../../components/ui/page-states';
import { useCanChange } from '../../../lib/roles';
import { ErasePerson } from './erase-person';
import { ErasureReceipts } from './erasure-receipts';
import { SuppressionList } from './suppression-list';

/**
 * The Privacy page (docs/dashboard.md#privacy), admins only: erase a person, the erasure
 * receipts, and the suppression list. A viewer is told the page is for admins, and nothing is
 * asked of the service (its routes answer viewers 403).
 */
export function PrivacyOverview() {
  const isAdmin = useCanChange();
  return (
    <>
      <PageHeader
        title="Privacy"
        description="Erase a person everywhere the service keeps them, and keep them from being stored again."
      />
      {isAdmin ? (
        <Stack gap="xl">
          <ErasePerson />
          <SuppressionList />
          <ErasureReceipts />
        </Stack>
      ) : (
        <Alert
          color="gray"
          variant="light"
          icon={<IconLock aria-hidden />}
          title="Admins only"
          role="status"
          data-testid="privacy-admins-only"
        >
          Erasing people and managing the suppression list is for admins of the account. Ask an
          admin if a person asked to be forgotten.
        </Alert>
      )}
    </>
  );
}
