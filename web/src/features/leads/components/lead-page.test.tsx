import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { fakeDashboard, fakeLead } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { LeadPage } from './lead-page';

const LEAD = {
  ...fakeLead(9, { company: 'Analytical Engines', email: 'ada@example.com' }),
  campaign_name: 'Spring open house',
  import: {
    id: '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b',
    created_at: '2026-11-22T08:44:45.000Z',
    campaign_id: 3,
    api_key: { id: 3, name: 'CRM sync', prefix: 'capi_Xk3v9Qm' },
    source: 'open-house',
    tags: ['spring'],
    disclaimer_version: 'v7',
    compliance_acknowledged_at: '2026-11-22T08:44:44.000Z',
    client_ip: '203.0.113.7',
    received_count: 5,
    valid_count: 4,
    invalid_count: 1,
    duplicate_count: 0,
    new_count: 4,
    rejected_rows_kept: 1,
  },
};

function delivery(id: number, eventType: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    webhook_id: `evt-${id}`,
    event_type: eventType,
    endpoint: { id: 7, url: 'https://crm.example.com/hooks', description: null },
    status: 'succeeded',
    attempt_count: 1,
    held_by: null,
    created_at: '2026-11-22T08:45:00.000Z',
    attempts: [
      {
        id: id * 10,
        attempted_at: '2026-11-22T08:45:01.000Z',
        outcome: 'succeeded',
        status_code: 204,
        duration_ms: 42,
        error: null,
      },
    ],
    ...overrides,
  };
}

describe('a lead’s page', () => {
  it('shows the lead, its import’s compliance record and its deliveries newest first with each attempt’s outcome', async () => {
    fakeDashboard({
      'GET /leads/9': LEAD,
      'GET /leads/9/deliveries': (_request, url) =>
        url.searchParams.get('cursor') === 'next'
          ? { items: [delivery(1, 'lead.created')], next_cursor: null, retention_days: 30 }
          : {
              items: [
                delivery(2, 'lead.status_changed', {
                  status: 'failed',
                  attempts: [
                    {
                      id: 21,
                      attempted_at: '2026-11-23T09:00:01.000Z',
                      outcome: 'failed',
                      status_code: 500,
                      duration_ms: 1534,
                      error: 'HTTP 500',
                    },
                  ],
                }),
              ],
              next_cursor: 'next',
              retention_days: 30,
            },
    });
    renderWithProviders(<LeadPage leadId={9} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Ada Lovelace' })).toBeVisible();
    expect(screen.getByRole('link', { name: 'Spring open house' })).toHaveAttribute(
      'href',
      '/campaigns/4',
    );
    const fields = screen.getByRole('region', { name: 'Lead' });
    expect(within(fields).getByText('Analytical Engines')).toBeVisible();
    expect(within(fields).getByText('+14155550009')).toBeVisible();
    const record = screen.getByRole('region', { name: 'Import' });
    expect(within(record).getByText(/CRM sync/)).toBeVisible();
    expect(within(record).getByText('203.0.113.7')).toBeVisible();
    expect(
      within(record).getByText('5 rows read: 4 new leads, 0 duplicates skipped, 1 rejected'),
    ).toBeVisible();
    expect(within(record).getByText(/Version v7, acknowledged/)).toBeVisible();

    expect(await screen.findByText(/kept 30 days: older ones are no longer listed/)).toBeVisible();
    const first = await screen.findAllByTestId('lead-delivery');
    expect(first).toHaveLength(1);
    expect(first[0]).toHaveTextContent('lead.status_changed');
    expect(first[0]).toHaveTextContent('Delivery failed');
    expect(within(first[0]).getByText('Failed')).toBeVisible();
    expect(first[0]).toHaveTextContent('HTTP 500 · 1.53 s');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('lead-delivery')).toHaveLength(2));
    const all = screen.getAllByTestId('lead-delivery');
    expect(all.map((d) => d.textContent)).toEqual([
      expect.stringContaining('lead.status_changed'),
      expect.stringContaining('lead.created'),
    ]);
    expect(within(all[1]).getByText('Succeeded')).toBeVisible();
  });

  it('says a held delivery waits behind an earlier one of the lead, with a link to it', async () => {
    fakeDashboard({
      'GET /leads/9': LEAD,
      'GET /leads/9/deliveries': {
        items: [
          delivery(12, 'lead.status_changed', { status: 'pending', held_by: 11, attempts: [] }),
          delivery(11, 'lead.created', { status: 'pending' }),
        ],
        next_cursor: null,
        retention_days: 30,
      },
    });
    renderWithProviders(<LeadPage leadId={9} />);
    const [held, ahead] = await screen.findAllByTestId('lead-delivery');
    expect(held).toHaveTextContent('Delivery waiting');
    expect(within(held).getByTestId('lead-delivery-held')).toHaveTextContent(
      'Waiting behind delivery 11 (in order per lead)',
    );
    expect(within(held).getByRole('link', { name: 'delivery 11' })).toHaveAttribute(
      'href',
      '#delivery-11',
    );
    expect(ahead).toHaveAttribute('id', 'delivery-11');
    expect(within(ahead).queryByTestId('lead-delivery-held')).toBeNull();
  });

  it('says so when no delivery is about the lead, and shows the not-found page for a missing lead', async () => {
    fakeDashboard({
      'GET /leads/9': LEAD,
      'GET /leads/9/deliveries': { items: [], next_cursor: null, retention_days: 7 },
      'GET /leads/8': json(404, { error: 'not_found', message: 'lead 8 does not exist' }),
    });
    const { unmount } = renderWithProviders(<LeadPage leadId={9} />);
    expect(await screen.findByText('No delivery about this lead')).toBeVisible();
    unmount();
    renderWithProviders(<LeadPage leadId={8} />);
    expect(await screen.findByRole('heading', { name: 'Lead not found', level: 1 })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('writes the counts of a large import with thousands separators, and one of each in the singular', async () => {
    const large = { received_count: 10000, new_count: 9998, duplicate_count: 1, invalid_count: 1 };
    fakeDashboard({
      'GET /leads/9': { ...LEAD, import: { ...LEAD.import, ...large } },
      'GET /leads/9/deliveries': { items: [], next_cursor: null, retention_days: 7 },
    });
    renderWithProviders(<LeadPage leadId={9} />);
    const record = await screen.findByRole('region', { name: 'Import' });
    expect(
      within(record).getByText(
        '10,000 rows read: 9,998 new leads, 1 duplicate skipped, 1 rejected',
      ),
    ).toBeVisible();
  });
});
