import { isValidElement, type ReactNode } from 'react';
import { DataTable, type DataColumn } from './data-table';
import { LoadMore, type NextPages } from './load-more';
import { EmptyPanel, PageError, PageLoader } from './page-states';

/** What {@link PagedTable} needs of a TanStack query, paged (an infinite query) or not. */
export interface TableQuery extends Partial<NextPages> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => Promise<unknown>;
}

/** The empty state as a title, a line and an icon: an {@link EmptyPanel}. */
export interface EmptyText {
  title: string;
  description?: ReactNode;
  icon?: ReactNode;
}

/**
 * The dashboard's list of records read from the API (docs/dashboard.md#the-browser-app): a
 * spinner labelled `loading` while the first page loads; the error in words, with **Try again**
 * unless `retry` is false, when it fails; `empty` when there are no `rows` (an {@link EmptyPanel}
 * for an {@link EmptyText}, else the node as given; without `empty`, the table, empty); else the
 * `caption` (a line above, e.g. how many) and a {@link DataTable} of `rows`. Under it, for an
 * infinite query, the **Load more** button and the error of the next page ({@link LoadMore}).
 *
 * It renders siblings, not a box: the caller's `Stack` spaces them.
 */
export function PagedTable<T>({
  query,
  rows,
  loading,
  errorTitle,
  retry = true,
  empty,
  caption,
  ...table
}: {
  query: TableQuery;
  rows: T[];
  /** The spinner's label, e.g. "Loading the imports…". */
  loading: string;
  /** The error's heading (PageError's own when not given). */
  errorTitle?: string;
  retry?: boolean;
  empty?: EmptyText | ReactNode;
  caption?: ReactNode;
  columns: Array<DataColumn<T>>;
  rowKey: (row: T) => string | number;
  label?: string;
  labelledBy?: string;
  minWidth: number;
  testId?: string;
  rowTestId?: string;
  striped?: boolean;
  bordered?: boolean;
}) {
  let body: ReactNode;
  if (query.isPending) {
    body = <PageLoader label={loading} />;
  } else if (query.isError) {
    body = (
      <PageError
        title={errorTitle}
        error={query.error}
        onRetry={retry ? () => void query.refetch() : undefined}
      />
    );
  } else if (rows.length === 0 && empty !== undefined) {
    body = isEmptyText(empty) ? <EmptyPanel {...empty} /> : empty;
  } else {
    body = (
      <>
        {caption}
        <DataTable rows={rows} {...table} />
      </>
    );
  }
  return (
    <>
      {body}
      {query.fetchNextPage && (
        <LoadMore
          pages={{
            hasNextPage: query.hasNextPage ?? false,
            isFetchingNextPage: query.isFetchingNextPage ?? false,
            isFetchNextPageError: query.isFetchNextPageError ?? false,
            error: query.error,
            fetchNextPage: query.fetchNextPage,
          }}
        />
      )}
    </>
  );
}

function isEmptyText(empty: EmptyText | ReactNode): empty is EmptyText {
  return typeof empty === 'object' && empty !== null && !isValidElement(empty) && 'title' in empty;
}
