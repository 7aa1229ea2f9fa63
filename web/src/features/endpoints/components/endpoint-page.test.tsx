import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { setCsrfToken } from '../../../lib/api-client';
import { fakeSession, json } from '../../../testing/fake-api';
import {
  EVENT_TYPES,
  fakeAttempt,
  fakeDashboard,
  fakeEndpoint,
  fakeLedger,
} from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';

const CHANGE_BUTTONS = [
  'Send test event',
  'Rotate secret',
  'Reveal secret',
  'Delete endpoint',
] as const;

function endpointApi(extra: Parameters<typeof fakeDashboard>[0] = {}) {
  return {
    'GET /campaigns': [
      { id: 2, name: 'Spring', default_region: 'US', created_at: '', endpoint_count: 1 },
    ],
    'GET /endpoints/5': fakeEndpoint(),
    'GET /event-types': EVENT_TYPES,
    'GET /endpoints/5/attempts': { items: [fakeAttempt(1)], next_cursor: null },
    'GET /endpoints/5/ledger': fakeLedger(7, { '2026-11-25': { delivered: 3, skipped: 1 } }),
    'GET /attempts/1': {
      ...fakeAttempt(1),
      response_excerpt: '{"ok":true}',
      delivery: { status: 'pending', attempt_count: 1, next_attempt_at: '2026-11-25T11:00:00Z' },
      request: {
        url: 'https://crm.example.com/hooks',
        headers: { 'webhook-id': 'evt-1', 'webhook-signature': 'v1,K5oZfzN95Z9U…' },
        body: '{"type":"lead.created"}',
      },
    },
    ...extra,
  };
}

describe('the endpoint page', () => {
  afterEach(() => setCsrfToken(null));

  it('leads back from the edit page through the campaign: Campaigns › Spring › CRM sync › Edit', async () => {
    fakeDashboard(endpointApi());
    renderApp('/endpoints/5/edit');
    expect(await screen.findByRole('heading', { name: 'Edit endpoint', level: 1 })).toBeVisible();
    const trail = screen.getByLabelText('Breadcrumb');
    await waitFor(() =>
      expect(
        within(trail)
          .getAllByRole('link')
          .map((link) => link.textContent),
      ).toEqual(['Campaigns', 'Spring', 'CRM sync']),
    );
    expect(within(trail).getByRole('link', { name: 'Spring' })).toHaveAttribute(
      'href',
      '/campaigns/2',
    );
    expect(trail).toHaveTextContent(/Edit$/);
  });

  it('gives an admin every change control, with the health figures', async () => {
    fakeDashboard(endpointApi());
    renderApp('/endpoints/5');
    expect(await screen.findByRole('heading', { name: 'CRM sync', level: 1 })).toBeVisible();
    for (const name of CHANGE_BUTTONS) {
      expect(screen.getByRole('button', { name })).toBeInTheDocument();
    }
    expect(screen.getByRole('link', { name: 'Edit endpoint' })).toBeInTheDocument();
    expect(screen.getByText('75 %')).toBeInTheDocument();
    expect(screen.getByText('43 ms')).toBeInTheDocument();
  });

  it('shows the delivery ledger, to viewers too', async () => {
    fakeDashboard(endpointApi(), 'viewer');
    renderApp('/endpoints/5');
    const table = await screen.findByRole('table', { name: 'Delivery ledger' });
    const [today] = within(table).getAllByTestId('ledger-row');
    expect([...today.querySelectorAll('th, td')].map((cell) => cell.textContent)).toEqual([
      '2026-11-25',
      '4',
      '3',
      '0',
      '0',
      '0',
      '1',
      '0',
    ]);
  });

  it('shows the payload filter in monospace, or that there is none', async () => {
    fakeDashboard(
      endpointApi({
        'GET /endpoints/5': fakeEndpoint({ filter: 'data.source == "facebook"' }),
      }),
      'viewer',
    );
    renderApp('/endpoints/5');
    const shown = await screen.findByTestId('endpoint-filter');
    expect(shown).toHaveTextContent('Filter: only events it matches are sent');
    expect(within(shown).getByText('data.source == "facebook"').tagName).toBe('PRE');
  });

  it('shows the throttle, or that there is none', async () => {
    fakeDashboard({
      ...endpointApi(),
      'GET /endpoints/5': fakeEndpoint({ max_deliveries_per_second: 5, max_in_flight: 2 }),
    });
    renderApp('/endpoints/5');
    expect(await screen.findByTestId('endpoint-throttle')).toHaveTextContent(
      'Throttle: 5 deliveries/s, 2 in flight',
    );
  });

  it('says whether deliveries go in order per lead', async () => {
    fakeDashboard({ ...endpointApi(), 'GET /endpoints/5': fakeEndpoint({ ordering: 'per_lead' }) });
    renderApp('/endpoints/5');
    expect(await screen.findByTestId('endpoint-ordering')).toHaveTextContent(
      'Delivery order: in order per lead',
    );
  });

  it('renders no change control at all for a viewer, not even in an opened attempt', async () => {
    fakeDashboard(endpointApi(), 'viewer');
    renderApp('/endpoints/5');
    await screen.findByRole('heading', { name: 'CRM sync', level: 1 });
    await screen.findByText('evt-1');
    for (const name of [...CHANGE_BUTTONS, 'Redeliver']) {
      expect(screen.queryByRole('button', { name })).toBeNull();
    }
    expect(screen.queryByRole('link', { name: 'Edit endpoint' })).toBeNull();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Open attempt 1' }));
    expect(await screen.findByText(/"type": "lead.created"/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Redeliver' })).toBeNull();
  });

  it('sends a test event of the chosen type and shows status, duration and the response', async () => {
    const { requests } = fakeDashboard(
      endpointApi({
        'POST /endpoints/5/test': {
          ...fakeAttempt(9, { webhook_id: 'test_1', duration_ms: 87 }),
          response_excerpt: 'thanks!',
        },
      }),
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    await screen.findByRole('heading', { name: 'CRM sync', level: 1 });
    await screen.findByRole('option', { name: 'example of lead.created' });
    await user.selectOptions(screen.getByLabelText('Event to send'), 'lead.created');
    await user.click(screen.getByRole('button', { name: 'Send test event' }));
    const result = await screen.findByTestId('test-result');
    expect(result).toHaveTextContent('Status 200');
    expect(result).toHaveTextContent('87 ms');
    expect(result).toHaveTextContent('thanks!');
    const sent = requests().find((r) => r.method === 'POST')!;
    expect(await sent.json()).toEqual({ event_type: 'lead.created' });
    // The session's anti-CSRF token rides along.
    expect(sent.headers.get('x-csrf-token')).toBe(fakeSession().csrf_token);
  });

  it('names the endpoint by its description, else by its URL’s host', async () => {
    fakeDashboard(
      endpointApi({ 'GET /endpoints/5': fakeEndpoint({ description: null }) }),
      'viewer',
    );
    renderApp('/endpoints/5');
    expect(await screen.findByRole('heading', { name: 'crm.example.com', level: 1 })).toBeVisible();
    expect(screen.queryByText(/Endpoint 5/)).toBeNull();
  });

  it('shows the not-found page, with no action, for an endpoint the service does not find', async () => {
    fakeDashboard(
      endpointApi({
        'GET /endpoints/5': () =>
          json(404, { error: 'not_found', message: 'webhook endpoint 5 does not exist' }),
      }),
    );
    renderApp('/endpoints/5');
    expect(
      await screen.findByRole('heading', { name: 'Endpoint not found', level: 1 }),
    ).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Delivery charts' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Go to your campaigns' })).toBeVisible();
  });

  it('rotates only after a confirmation, then shows the new secret (which Reveal secret shows again) and the old one’s expiry once', async () => {
    const { requests } = fakeDashboard(
      endpointApi({
        'POST /endpoints/5/secret/rotate': {
          secret: 'whsec_new',
          previous_secret_expires_at: '2026-11-24T10:00:00Z',
        },
      }),
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Rotate secret' }));
    const dialog = await screen.findByRole('dialog');
    expect(requests().some((r) => r.method === 'POST')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Rotate now' }));
    expect(await screen.findByText('whsec_new')).toBeInTheDocument();
    // Reveal secret shows it again later: nothing claims it is shown once.
    expect(screen.queryByText(/shown only once/)).toBeNull();
    expect(screen.getByText(/show it again later with Reveal secret/)).toBeInTheDocument();
    expect(screen.getAllByText(/previous signing secret stays valid until/)).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText('whsec_new')).toBeNull());
  });

  it('says in words when a 410 Gone answer disabled the endpoint, and when', async () => {
    fakeDashboard(
      endpointApi({
        'GET /endpoints/5': fakeEndpoint({
          is_enabled: false,
          disabled_reason: 'gone',
          disabled_at: '2026-11-24T09:30:00Z',
        }),
      }),
      'viewer',
    );
    renderApp('/endpoints/5');
    const notice = await screen.findByTestId('disabled-notice');
    expect(notice).toHaveTextContent(
      /^Disabled automatically on .+: the endpoint answered 410 Gone\. Enable it again to resume deliveries\.$/,
    );
    expect(within(notice).getByText(/2026/).closest('time')).toHaveAttribute(
      'datetime',
      '2026-11-24T09:30:00.000Z',
    );
    expect(screen.getByText('Disabled')).toBeInTheDocument();
  });

  it('says when an admin disabled it', async () => {
    fakeDashboard(
      endpointApi({
        'GET /endpoints/5': fakeEndpoint({
          is_enabled: false,
          disabled_reason: 'manual',
          disabled_at: '2026-11-24T09:30:00Z',
        }),
      }),
    );
    renderApp('/endpoints/5');
    expect(await screen.findByTestId('disabled-notice')).toHaveTextContent(
      /^Disabled by an admin on .+\. Enable it again to resume deliveries\.$/,
    );
  });

  it('warns while the endpoint is failing: why, since when, and when it will be disabled', async () => {
    fakeDashboard(
      endpointApi({
        'GET /endpoints/5': fakeEndpoint({
          failing_since: '2026-11-24T09:30:00Z',
          failing_reason: 'failure_rate',
          auto_disable_at: '2026-11-29T09:30:00Z',
        }),
      }),
      'viewer',
    );
    renderApp('/endpoints/5');
    const banner = await screen.findByTestId('failing-banner');
    expect(banner).toHaveTextContent('This endpoint is failing');
    expect(banner).toHaveTextContent(/more than half of its attempts in the last hour failed/);
    const times = within(banner)
      .getAllByText(/2026/)
      .map((node) => node.closest('time')?.getAttribute('datetime'));
    expect(times).toEqual(['2026-11-24T09:30:00.000Z', '2026-11-29T09:30:00.000Z']);
    expect(screen.getByText('Failing')).toBeInTheDocument();
  });

  it('shows no disabled notice for an enabled endpoint', async () => {
    fakeDashboard(endpointApi());
    renderApp('/endpoints/5');
    await screen.findByRole('heading', { name: 'CRM sync', level: 1 });
    expect(screen.queryByTestId('disabled-notice')).toBeNull();
    expect(screen.queryByTestId('failing-banner')).toBeNull();
  });

  it('shows a failed change in the service’s words', async () => {
    fakeDashboard(
      endpointApi({
        'POST /endpoints/5/secret/reveal': () =>
          json(403, { error: 'forbidden', message: 'Only an admin may reveal a secret' }),
      }),
    );
    renderApp('/endpoints/5');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Reveal secret' }));
    expect(await screen.findByText('Only an admin may reveal a secret')).toBeInTheDocument();
  });
});
