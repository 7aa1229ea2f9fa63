import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api-errors';
import { renderWithProviders } from '../../testing/render';
import type { DataColumn } from './data-table';
import { PagedTable, type TableQuery } from './paged-table';

interface Lead {
  id: number;
  name: string;
}

const COLUMNS: Array<DataColumn<Lead>> = [
  { key: 'name', header: 'Name', rowHeader: true, cell: (lead) => lead.name },
];

/** A settled query with one more page to load unless told otherwise. */
function query(overrides: Partial<TableQuery> = {}): TableQuery {
  return {
    isPending: false,
    isError: false,
    error: null,
    refetch: vi.fn(() => Promise.resolve()),
    hasNextPage: true,
    isFetchingNextPage: false,
    isFetchNextPageError: false,
    fetchNextPage: vi.fn(() => Promise.resolve()),
    ...overrides,
  };
}

function renderTable(q: TableQuery, rows: Lead[], extra: { retry?: boolean } = {}) {
  return renderWithProviders(
    <PagedTable
      query={q}
      rows={rows}
      loading="Loading the leads…"
      errorTitle="The leads could not be loaded"
      empty={{ title: 'No leads yet', description: 'Upload some.' }}
      caption={<p>2 leads</p>}
      columns={COLUMNS}
      rowKey={(lead) => lead.id}
      label="Leads"
      minWidth={300}
      {...extra}
    />,
  );
}

describe('a paged table', () => {
  it('shows the rows, the caption, and a Load more button that fetches the next page', async () => {
    const q = query();
    renderTable(q, [
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Grace' },
    ]);
    expect(screen.getByRole('table', { name: 'Leads' })).toHaveTextContent('Grace');
    expect(screen.getByText('2 leads')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    expect(q.fetchNextPage).toHaveBeenCalledTimes(1);
  });

  it('shows the labelled spinner while the first page loads, and no table', () => {
    renderTable(query({ isPending: true, hasNextPage: false }), []);
    expect(screen.getByText('Loading the leads…')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('shows the empty state, not an empty table, when there are no rows', () => {
    renderTable(query({ hasNextPage: false }), []);
    expect(screen.getByRole('heading', { name: 'No leads yet' })).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });

  it('says why it failed, with Try again that refetches, or without it when retry is off', async () => {
    const q = query({ isError: true, error: new ApiError(503, 'unavailable', 'Try later.') });
    const view = renderTable(q, []);
    expect(screen.getByRole('alert')).toHaveTextContent('The leads could not be loaded');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(q.refetch).toHaveBeenCalledTimes(1);
    view.unmount();

    renderTable(q, [], { retry: false });
    expect(screen.getByRole('alert')).toHaveTextContent('The leads could not be loaded');
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
  });

  it('has no Load more button for a query that is not paged', () => {
    renderTable(query({ fetchNextPage: undefined, hasNextPage: undefined }), [
      { id: 1, name: 'Ada' },
    ]);
    expect(screen.getByRole('table', { name: 'Leads' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });
});
