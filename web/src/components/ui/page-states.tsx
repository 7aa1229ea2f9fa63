import {
  Alert,
  Button,
  Center,
  EmptyState,
  Group,
  Loader,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconInbox } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { errorMessage } from '../../lib/api-errors';

/** A page (or a page's body) that is loading: a spinner with a label screen readers announce. */
export function PageLoader({ label = 'Loading…' }: { label?: string }) {
  return (
    <Center mih="40vh" p="xl">
      <Stack align="center" gap="sm" role="status" aria-live="polite">
        <Loader size="md" aria-hidden />
        <Text c="dimmed" size="sm">
          {label}
        </Text>
      </Stack>
    </Center>
  );
}

/** A page that could not load: what failed, the service's message and, when given, a retry. */
export function PageError({
  title = 'This page could not be loaded',
  error,
  onRetry,
}: {
  title?: string;
  error: unknown;
  onRetry?: () => void;
}) {
  return (
    <Center p="xl">
      <Alert
        color="red"
        variant="light"
        title={title}
        icon={<IconAlertTriangle aria-hidden />}
        maw={560}
        w="100%"
        role="alert"
      >
        <Stack gap="sm" align="flex-start">
          <Text size="sm">{errorMessage(error)}</Text>
          {onRetry && (
            <Button variant="light" color="red" size="xs" onClick={onRetry}>
              Try again
            </Button>
          )}
        </Stack>
      </Alert>
    </Center>
  );
}

/**
 * Nothing to show (yet): an icon, a title (a heading of level `order`: 2 below a page's
 * {@link PageHeader}, 1 when it is the page), a sentence and optionally what to do next.
 */
export function EmptyPanel({
  title,
  description,
  icon = <IconInbox size={28} aria-hidden />,
  order = 2,
  children,
}: {
  title: string;
  description?: ReactNode;
  icon?: ReactNode;
  order?: 1 | 2 | 3;
  children?: ReactNode;
}) {
  return (
    <EmptyState icon={icon} withIndicatorBackground py={48} px="md">
      <EmptyState.Title order={order}>{title}</EmptyState.Title>
      {description && <EmptyState.Description>{description}</EmptyState.Description>}
      {children && <EmptyState.Actions>{children}</EmptyState.Actions>}
    </EmptyState>
  );
}

/** A page's heading (the page's `<h1>`), a line saying what the page is for, and its actions. */
export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-start" gap="md" mb="lg" wrap="wrap">
      <Stack gap={4}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {description && (
          <Text c="dimmed" size="sm" maw={640}>
            {description}
          </Text>
        )}
      </Stack>
      {actions && <Group gap="sm">{actions}</Group>}
    </Group>
  );
}
