import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Outlet, useRouteError } from 'react-router';
import { PageLoader } from '../../components/ui/page-states';

/** The root route: every page renders inside it. */
export function RootRoute() {
  return <Outlet />;
}

/** Shown while the first page's code loads. */
export function RootHydrateFallback() {
  return <PageLoader />;
}

function isChunkLoadError(error: unknown): boolean {
  return (
    error instanceof Error &&
    /dynamically imported module|Importing a module script failed|error loading dynamically/i.test(
      error.message,
    )
  );
}

/**
 * A page that threw: says so and offers a reload. A page whose code cannot be fetched any more
 * (the service was updated while this tab stayed open) asks for the reload that fixes it.
 */
export function RootErrorBoundary() {
  const error = useRouteError();
  const stale = isChunkLoadError(error);
  if (!stale) console.error(error);
  return (
    <Center mih="100dvh" p="xl">
      <Stack align="center" gap="sm" maw={480} ta="center" role="alert">
        <Title order={1} size="h3">
          {stale ? 'The dashboard was updated' : 'Something went wrong'}
        </Title>
        <Text c="dimmed">
          {stale
            ? 'Reload the page to get the new version.'
            : 'This page failed to display. Reloading it usually helps; if it does not, tell your operator.'}
        </Text>
        <Button onClick={() => window.location.reload()}>Reload the page</Button>
      </Stack>
    </Center>
  );
}
