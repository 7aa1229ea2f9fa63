import { Alert } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { errorMessage } from '../../lib/api-errors';

/** A failed action's error, in the service's words. */
export function ErrorText({ error, title }: { error: unknown; title?: string }) {
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle aria-hidden />}
      title={title}
      role="alert"
    >
      {errorMessage(error)}
    </Alert>
  );
}
