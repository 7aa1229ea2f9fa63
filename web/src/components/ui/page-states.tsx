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
import { IconAlertTriangle, IconInbox, IconMapOff } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { errorMessage, isApiError } from '../../lib/api-errors';
import { HOME_PATH } from '../../lib/auth-guard';

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

/** What a not-found page says: its heading and a sentence. */
export interface NotFoundText {
  title: string;
  description: string;
}

/** The not-found page of an address that names no dashboard page. */
export const PAGE_NOT_FOUND: NotFoundText = {
  title: 'Page not found',
  description:
    'There is no dashboard page at this address. It may have moved, or the link is mistyped.',
};

/**
 * The one not-found page (docs/dashboard.md#the-browser-app): a heading (the page's `<h1>`), why,
 * and a way back to the campaigns; nothing else, no action. Shown for an unknown address and for
 * an id the service answers `404` for: one that does not exist and another account's alike.
 */
export function NotFoundPage({ title, description }: NotFoundText = PAGE_NOT_FOUND) {
  return (
    <EmptyPanel
      title={title}
      description={description}
      icon={<IconMapOff size={28} aria-hidden />}
      order={1}
    >
      <Button component={Link} to={HOME_PATH} variant="light">
        Go to your campaigns
      </Button>
    </EmptyPanel>
  );
}

/**
 * What a page shows until its main read (`query`) has data: a spinner labelled `loading`
 * while it loads; once it failed, the {@link NotFoundPage} with `notFound`'s words when the
 * service answered `404` (nothing to retry), else {@link PageError} with **Try again**.
 */
export function PageReadFallback({
  query,
  loading,
  notFound,
}: {
  query: { isError: boolean; error: unknown; refetch: () => unknown };
  loading: string;
  notFound: NotFoundText;
}) {
  if (!query.isError) return <PageLoader label={loading} />;
  if (isApiError(query.error, 404)) return <NotFoundPage {...notFound} />;
  return <PageError error={query.error} onRetry={() => void query.refetch()} />;
}
