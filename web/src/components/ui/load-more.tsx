import { Button, Group } from '@mantine/core';
import { PageError } from './page-states';

/** What {@link LoadMore} needs of a TanStack infinite query. */
export interface NextPages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  error: unknown;
  fetchNextPage: () => Promise<unknown>;
}

/**
 * The "Load more" button under a keyset-paged list (the delivery log, the audit log), and the
 * error in words when the next page could not be loaded.
 */
export function LoadMore({ pages }: { pages: NextPages }) {
  return (
    <>
      {pages.hasNextPage && (
        <Group justify="center">
          <Button
            variant="default"
            onClick={() => void pages.fetchNextPage()}
            loading={pages.isFetchingNextPage}
          >
            Load more
          </Button>
        </Group>
      )}
      {pages.isFetchNextPageError && (
        <PageError title="The next page could not be loaded" error={pages.error} />
      )}
    </>
  );
}
