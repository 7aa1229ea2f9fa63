import { Button, type ButtonProps } from '@mantine/core';

/**
 * **Refresh**: reads a query again now, spinning while it does. `query` is a TanStack Query
 * result (`useQuery`, `useInfiniteQuery`); the other props style the button.
 */
export function RefreshButton({
  query,
  ...props
}: ButtonProps & { query: { refetch: () => Promise<unknown>; isRefetching: boolean } }) {
  return (
    <Button {...props} onClick={() => void query.refetch()} loading={query.isRefetching}>
      Refresh
    </Button>
  );
}
