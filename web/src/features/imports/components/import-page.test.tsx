import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { fakeDashboard } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { ImportHistory } from './import-history';
import { ImportPage, rowNumbering } from './import-page';

const ID = '0b9c2f4e-6a1d-4c8e-9f57-2d3a1b7c9e10';

function fakeImport(overrides: Record<string, unknown> = {}) {
  return {
    id: ID,
    campaign_id: 3,
    created_at: '2026-11-25T10:00:00.000Z',
    api_key: { id: 7, name: 'CRM sync', prefix: 'ck_live_4f9a' },
    user: null,
    spreadsheet_import_id: null,
    source: 'crm-sync',
    tags: ['spring'],
    disclaimer_version: 'v2.1',
    compliance_acknowledged_at: '2026-11-25T10:00:00.000Z',
    client_ip: '203.0.113.7',
    received_count: 5,
    valid_count: 2,
    invalid_count: 3,
    duplicate_count: 0,
    new_count: 2,
    rejected_rows_kept: 3,
    ...overrides,
  };
}

const rejection = (row: number, field: string, submitted: Record<string, unknown>) => ({
  row,
  field,
  message: `${field} is wrong`,
  submitted,
});

describe('import history', () => {
  it('lists a campaign’s imports with who made them and their counts, each linking to its page', async () => {
    fakeDashboard({
      'GET /campaigns/3/imports': () =>
        json(200, {
          items: [fakeImport(), fakeImport({ id: 'x', invalid_count: 0 })],
          next_cursor: null,
        }),
    });
    renderWithProviders(<ImportHistory campaignId={3} />);
    const table = await screen.findByRole('table', { name: 'Imports' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('CRM sync (ck_live_4f9a…)');
    expect(rows[0]).toHaveTextContent('crm-sync');
    expect(within(rows[0]).getByRole('link')).toHaveAttribute('href', `/imports/${ID}`);
  });

  it('shows rows read, new leads, duplicates skipped and rejected apart: a re-import adds no lead', async () => {
    const reimport = {
      received_count: 1971 + 29,
      valid_count: 1971,
      duplicate_count: 1971,
      new_count: 0,
      invalid_count: 29,
    };
    fakeDashboard({
      'GET /campaigns/3/imports': () =>
        json(200, { items: [fakeImport({ id: 'again', ...reimport })], next_cursor: null }),
    });
    renderWithProviders(<ImportHistory campaignId={3} />);
    const table = await screen.findByRole('table', { name: 'Imports' });
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers.slice(3)).toEqual(['Rows read', 'New leads', 'Duplicates skipped', 'Rejected']);
    const cells = within(within(table).getAllByRole('row')[1])
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells.slice(-4)).toEqual(['2,000', '0', '1,971', '29']);
  });

  it('says so when a campaign has no import yet', async () => {
    fakeDashboard({
      'GET /campaigns/3/imports': () => json(200, { items: [], next_cursor: null }),
    });
    renderWithProviders(<ImportHistory campaignId={3} />);
    expect(await screen.findByText('No imports yet')).toBeVisible();
  });
});

describe('an import’s page', () => {
  it('shows the compliance record, the rejected rows as submitted, and the CSV download', async () => {
    const { requests } = fakeDashboard({
      [`GET /imports/${ID}`]: () => json(200, fakeImport()),
      [`GET /imports/${ID}/rejections`]: (_request, url) =>
        url.searchParams.get('cursor')
          ? json(200, {
              items: [rejection(9, 'email', { phone: '+1', email: 'x' })],
              next_cursor: null,
            })
          : json(200, {
              items: [rejection(1, 'phone', { phone: '12345', first_name: '=SUM(A1)' })],
              next_cursor: 'next',
            }),
    });
    renderWithProviders(<ImportPage importId={ID} />);
    expect(await screen.findByText('203.0.113.7')).toBeVisible();
    expect(screen.getByText('CRM sync (ck_live_4f9a…)')).toBeVisible();
    const table = await screen.findByRole('table', { name: 'Rejected rows' });
    // The submitted fields under their labels, as the mapping form names them.
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual([
      'Row',
      'Problem',
      'Phone',
      'Email',
      'First name',
      'Last name',
      'Company',
      'Job title',
    ]);
    expect(within(table).getByText('=SUM(A1)')).toBeVisible();
    expect(within(table).getByText('phone is wrong')).toBeVisible();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    expect(await within(table).findByText('email is wrong')).toBeVisible();
    expect(
      requests()
        .filter((r) => r.url.includes('/rejections'))
        .at(-1)!.url,
    ).toContain('cursor=next');
    expect(screen.getByRole('link', { name: 'Download rejected rows (CSV)' })).toHaveAttribute(
      'href',
      `/dashboard/api/imports/${ID}/rejections.csv`,
    );
  });

  it('says when the rejected rows are past retention, and offers no download', async () => {
    fakeDashboard({
      [`GET /imports/${ID}`]: () => json(200, fakeImport({ rejected_rows_kept: 0 })),
    });
    renderWithProviders(<ImportPage importId={ID} />);
    expect(await screen.findByText(/no longer kept/)).toBeVisible();
    expect(screen.queryByRole('link', { name: /Download/ })).toBeNull();
  });

  it('shows the not-found page, with nothing to retry, when the import does not exist', async () => {
    fakeDashboard({
      [`GET /imports/${ID}`]: () =>
        json(404, { error: 'not_found', message: `import ${ID} does not exist` }),
    });
    renderWithProviders(<ImportPage importId={ID} />);
    expect(
      await screen.findByRole('heading', { name: 'Import not found', level: 1 }),
    ).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });
});

describe('the rejected rows’ numbering', () => {
  it('says rows count from 0 for an API upload, and by file row for a chunk of a spreadsheet import', async () => {
    expect(rowNumbering({ spreadsheet_import_id: null })).toBe(
      'Rows count from 0, in the order the leads were sent.',
    );
    expect(rowNumbering({ spreadsheet_import_id: 'b5c1' })).toBe(
      'Rows are numbered as in the spreadsheet, its header being row 1.',
    );
    fakeDashboard({
      [`GET /imports/${ID}`]: () => json(200, fakeImport({ spreadsheet_import_id: 'b5c1' })),
      [`GET /imports/${ID}/rejections`]: () =>
        json(200, { items: [rejection(3, 'phone', { phone: '55-1' })], next_cursor: null }),
    });
    renderWithProviders(<ImportPage importId={ID} />);
    expect(await screen.findByTestId('row-numbering')).toHaveTextContent(
      'Rows are numbered as in the spreadsheet, its header being row 1.',
    );
    expect(screen.queryByText(/count from 0/)).toBeNull();
  });
});
