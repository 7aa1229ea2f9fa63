import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { fakeDashboard, fakeLedger } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { DeliveryLedger } from './delivery-ledger';

/** The ledger route answering as many days as asked for, with two busy days. */
function ledgerApi() {
  return fakeDashboard({
    'GET /endpoints/5/ledger': (_request, url) =>
      fakeLedger(Number(url.searchParams.get('days') ?? 30), {
        '2026-11-25': { delivered: 9, failed: 1, pending: 2, skipped: 3, filtered: 4 },
        '2026-11-23': { delivered: 4, skipped: 1 },
      }),
  });
}

const ledgerReads = (requests: () => Request[]) =>
  requests().filter((r) => r.url.includes('/ledger'));

describe('the delivery ledger', () => {
  it('shows one row per day of the last week, today first, under the seven column headers, zeros included', async () => {
    const { requests } = ledgerApi();
    renderWithProviders(<DeliveryLedger endpointId={5} />);
    const table = await screen.findByRole('table', { name: 'Delivery ledger' });
    expect(screen.getByRole('heading', { name: 'Delivery ledger', level: 2 })).toBeVisible();
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual([
      'Day (UTC)',
      'Matched',
      'Delivered',
      'Failed',
      'Pending',
      'Of which throttled',
      'Skipped',
      'Filtered out',
    ]);
    const rows = within(table).getAllByTestId('ledger-row');
    expect(rows).toHaveLength(7);
    const cells = (row: HTMLElement) =>
      [...row.querySelectorAll('th, td')].map((cell) => cell.textContent);
    expect(cells(rows[0])).toEqual(['2026-11-25', '15', '9', '1', '2', '0', '3', '4']);
    expect(cells(rows[1])).toEqual(['2026-11-24', '0', '0', '0', '0', '0', '0', '0']);
    expect(cells(rows[2])).toEqual(['2026-11-23', '5', '4', '0', '0', '0', '1', '0']);
    expect(cells(rows[6])).toEqual(['2026-11-19', '0', '0', '0', '0', '0', '0', '0']);
    // No throttle, nothing waiting on one: no line about it.
    expect(screen.queryByTestId('ledger-throttle')).toBeNull();
    // Each day names its row for screen readers.
    expect(within(table).getByRole('rowheader', { name: '2026-11-25' })).toBeInTheDocument();
    const [read] = ledgerReads(requests);
    expect(new URL(read.url).pathname).toBe('/dashboard/api/endpoints/5/ledger');
    expect(new URL(read.url).searchParams.get('days')).toBe('7');
  });

  it('asks for the window chosen', async () => {
    const { requests } = ledgerApi();
    renderWithProviders(<DeliveryLedger endpointId={5} />);
    await screen.findByRole('table', { name: 'Delivery ledger' });
    await userEvent.setup().selectOptions(screen.getByLabelText('Days'), '90');
    await waitFor(() => expect(screen.getAllByTestId('ledger-row')).toHaveLength(90));
    expect(screen.getAllByTestId('ledger-row').at(-1)).toHaveTextContent('2026-08-28');
    expect(new URL(ledgerReads(requests).at(-1)!.url).searchParams.get('days')).toBe('90');
  });

  it('says so in the service’s words when the ledger cannot be read', async () => {
    fakeDashboard({
      'GET /endpoints/5/ledger': () =>
        json(404, { error: 'not_found', message: 'webhook endpoint 5 does not exist' }),
    });
    renderWithProviders(<DeliveryLedger endpointId={5} />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The delivery ledger could not be loaded');
    expect(alert).toHaveTextContent('webhook endpoint 5 does not exist');
    expect(screen.queryByRole('table', { name: 'Delivery ledger' })).toBeNull();
  });

  it('says how many pending deliveries wait on the throttle, with its limits, apart from the others pending', async () => {
    fakeDashboard({
      'GET /endpoints/5/ledger': fakeLedger(
        7,
        {
          '2026-11-25': { delivered: 10, pending: 40, throttled: 37 },
          '2026-11-24': { pending: 5, throttled: 5 },
        },
        { max_deliveries_per_second: 5, max_in_flight: 2 },
      ),
    });
    renderWithProviders(<DeliveryLedger endpointId={5} />);
    const table = await screen.findByRole('table', { name: 'Delivery ledger' });
    expect(screen.getByTestId('ledger-throttle')).toHaveTextContent(
      '42 waiting on throttle (limit 5/s, 2 in flight). The others pending wait for a first attempt or a retry.',
    );
    const [today] = within(table).getAllByTestId('ledger-row');
    expect([...today.querySelectorAll('th, td')].map((cell) => cell.textContent)).toEqual([
      '2026-11-25',
      '50',
      '10',
      '0',
      '40',
      '37',
      '0',
      '0',
    ]);
  });
});
