import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { EVENT_TYPES, fakeDashboard, fakeEndpoint } from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { toEndpointInput } from './endpoint-form';

const CAMPAIGNS = [
  { id: 2, name: 'Spring', default_region: 'US', created_at: '', endpoint_count: 0 },
];

describe('the endpoint form', () => {
  it('sends a trimmed URL and no empty description', () => {
    expect(
      toEndpointInput({
        url: ' https://x.test/h ',
        description: '  ',
        events: ['ping'],
        enabled: false,
      }),
    ).toEqual({ url: 'https://x.test/h', description: null, events: ['ping'], enabled: false });
  });

  it('sends the delivery order only when one was chosen', () => {
    const values = { url: 'https://x.test/h', description: '', events: ['ping'], enabled: true };
    expect(toEndpointInput({ ...values, ordering: 'per_lead' })).toMatchObject({
      ordering: 'per_lead',
    });
    expect(toEndpointInput(values)).not.toHaveProperty('ordering');
  });

  it('checks the URL in the browser, shows the service’s refusal of it at the field, then creates the endpoint and shows its secret once', async () => {
    let attempts = 0;
    const { requests } = fakeDashboard({
      'GET /campaigns': CAMPAIGNS,
      'GET /event-types': EVENT_TYPES,
      'POST /campaigns/2/endpoints': () =>
        ++attempts === 1
          ? json(422, {
              error: 'validation_failed',
              message: 'url must not point to a private address',
            })
          : { endpoint: fakeEndpoint({ id: 9 }), secret: 'whsec_once' },
    });
    renderApp('/campaigns/2/endpoints/new');
    const user = userEvent.setup();
    const url = await screen.findByLabelText('URL');
    expect(url).toHaveAttribute('type', 'url');
    await user.type(url, 'localhost');
    await user.type(screen.getByLabelText('Description'), 'CRM');
    // One checkbox per type, named with its exact string, and its example a click away.
    await user.click(await screen.findByRole('checkbox', { name: 'lead.created' }));
    expect(screen.getByRole('checkbox', { name: 'leads.bulk_created' })).not.toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Show example of lead.created' }));
    expect(screen.getByText(/"phone": "\+14155550100"/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    // Refused in the browser: said at the field, nothing sent.
    expect(url).toHaveAccessibleDescription(/Enter a whole URL, starting with https:\/\//);
    expect(requests().some((r) => r.method === 'POST')).toBe(false);
    await user.clear(url);
    await user.type(url, 'ftp://x.test');
    expect(url).toHaveAccessibleDescription(/must start with https:\/\/ or http:\/\/, not ftp:/);

    // The service's own refusal of the URL is said at the field too, not in a banner.
    await user.clear(url);
    await user.type(url, 'https://10.0.0.1/hooks');
    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    await waitFor(() =>
      expect(url).toHaveAccessibleDescription(/url must not point to a private address/),
    );
    expect(screen.queryByRole('alert')).toBeNull();

    await user.clear(screen.getByLabelText('URL'));
    await user.type(screen.getByLabelText('URL'), 'https://x.test/hooks');
    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(await screen.findByText('whsec_once')).toBeInTheDocument();
    expect(screen.getByText(/shown only once/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    const sent = requests()
      .filter((r) => r.method === 'POST')
      .at(-1)!;
    expect(await sent.json()).toEqual({
      url: 'https://x.test/hooks',
      description: 'CRM',
      events: ['lead.created'],
      enabled: true,
      signature_scheme: 'symmetric',
    });

    // Leaving the page forgets it: the endpoint's page never shows it.
    await user.click(screen.getByRole('link', { name: 'Go to the endpoint' }));
    await waitFor(() => expect(screen.queryByText('whsec_once')).toBeNull());
  });

  it('asks for an event type before sending anything', async () => {
    const { requests } = fakeDashboard({
      'GET /campaigns': CAMPAIGNS,
      'GET /event-types': EVENT_TYPES,
    });
    renderApp('/campaigns/2/endpoints/new');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('URL'), 'https://x.test/hooks');
    await screen.findByRole('checkbox', { name: 'lead.created' });
    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(await screen.findByText('Choose at least one event type.')).toBeInTheDocument();
    expect(requests().some((r) => r.method === 'POST')).toBe(false);
  });

  it('takes back “Choose at least one event type.” as soon as a type is ticked', async () => {
    fakeDashboard({ 'GET /campaigns': CAMPAIGNS, 'GET /event-types': EVENT_TYPES });
    renderApp('/campaigns/2/endpoints/new');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('URL'), 'https://x.test/hooks');
    await screen.findByRole('checkbox', { name: 'lead.created' });
    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(await screen.findByText('Choose at least one event type.')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'lead.created' }));
    expect(screen.queryByText('Choose at least one event type.')).toBeNull();
  });

  it('says an asymmetric endpoint’s receiver verifies with its public key, not a signing secret', async () => {
    fakeDashboard({
      'GET /campaigns': CAMPAIGNS,
      'GET /event-types': EVENT_TYPES,
      'POST /campaigns/2/endpoints': {
        endpoint: fakeEndpoint({
          id: 9,
          signature_scheme: 'asymmetric',
          public_key: 'whpk_MCowBQYDK2VwAyEA',
        }),
        secret: null,
      },
    });
    renderApp('/campaigns/2/endpoints/new');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('URL'), 'https://x.test/hooks');
    await user.click(await screen.findByRole('checkbox', { name: 'lead.created' }));
    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(await screen.findByRole('heading', { name: 'Endpoint created' })).toBeInTheDocument();
    expect(
      screen.getByText('Your receiver verifies each delivery with this public key.'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/signing secret/)).toBeNull();
  });

  it('renders no form for a viewer, and no Add endpoint on the campaign', async () => {
    fakeDashboard(
      { 'GET /campaigns': CAMPAIGNS, 'GET /campaigns/2/endpoints': [fakeEndpoint()] },
      'viewer',
    );
    renderApp('/campaigns/2');
    expect(await screen.findByText('https://crm.example.com/hooks')).toBeInTheDocument();
    expect(screen.getByText('75 %')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Add endpoint' })).toBeNull();
  });
});
