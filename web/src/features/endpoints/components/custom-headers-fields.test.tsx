import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  fakeDashboard,
  fakeEndpoint,
  fakeEndpointPageApi,
} from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { headerRows, headersInput } from './custom-headers-fields';

const SAVED = [
  { name: 'X-Tenant', secret: false, value: 'acme', masked_value: null },
  { name: 'Authorization', secret: true, value: null, masked_value: '••••9a61' },
];

describe('custom headers in the endpoint form', () => {
  it('sends nothing when the rows are unchanged, and a saved secret left empty without a value', () => {
    const initial = headerRows(SAVED);
    expect(initial).toEqual([
      { name: 'X-Tenant', value: 'acme', secret: false, savedMask: null },
      { name: 'Authorization', value: '', secret: true, savedMask: '••••9a61' },
    ]);
    expect(headersInput(initial, initial)).toBeUndefined();
    expect(
      headersInput(initial, [
        { ...initial[0], value: ' globex ' },
        initial[1],
        { name: '', value: '', secret: false, savedMask: null },
      ]),
    ).toEqual([
      { name: 'X-Tenant', value: 'globex', secret: false },
      { name: 'Authorization', secret: true },
    ]);
    expect(headersInput(initial, [])).toEqual([]);
  });

  it('creates an endpoint with a plain and a secret header, each control found by its label', async () => {
    const { requests } = fakeDashboard({
      'GET /campaigns': [
        { id: 2, name: 'Spring', default_region: 'US', created_at: '', endpoint_count: 0 },
      ],
      'GET /event-types': EVENT_TYPES,
      'POST /campaigns/2/endpoints': { endpoint: fakeEndpoint({ id: 9 }), secret: 'whsec_once' },
    });
    renderApp('/campaigns/2/endpoints/new');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('URL'), 'https://x.test/hooks');
    await user.click(await screen.findByRole('checkbox', { name: 'lead.created' }));
    const fieldset = screen.getByRole('group', { name: 'Custom headers' });
    await user.click(within(fieldset).getByRole('button', { name: 'Add header' }));
    await user.click(within(fieldset).getByRole('button', { name: 'Add header' }));
    await user.type(screen.getByLabelText('Header 1 name'), 'X-Tenant');
    await user.type(screen.getByLabelText('Header 1 value'), 'acme');
    await user.type(screen.getByLabelText('Header 2 name'), 'Authorization');
    await user.click(screen.getByRole('checkbox', { name: 'Header 2 secret' }));
    // A secret value is typed into a password field.
    expect(screen.getByLabelText('Header 2 value')).toHaveAttribute('type', 'password');
    await user.type(screen.getByLabelText('Header 2 value'), 'Bearer t0k');
    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(await screen.findByText('whsec_once')).toBeInTheDocument();
    const sent = requests().find((r) => r.method === 'POST')!;
    expect(await sent.json()).toMatchObject({
      headers: [
        { name: 'X-Tenant', value: 'acme', secret: false },
        { name: 'Authorization', value: 'Bearer t0k', secret: true },
      ],
    });
  });

  it('edits the headers without ever holding a saved secret value, which stays as saved', async () => {
    const { requests } = fakeDashboard({
      ...fakeEndpointPageApi({ endpoint: () => fakeEndpoint({ custom_headers: SAVED }) }),
      'PATCH /endpoints/5': fakeEndpoint({ custom_headers: SAVED }),
    });
    renderApp('/endpoints/5/edit');
    const user = userEvent.setup();
    const secretValue = await screen.findByLabelText('Header 2 value');
    expect(secretValue).toHaveValue('');
    expect(secretValue).toHaveAttribute('placeholder', 'Unchanged (••••9a61)');
    await user.clear(screen.getByLabelText('Header 1 value'));
    await user.type(screen.getByLabelText('Header 1 value'), 'globex');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(requests().some((r) => r.method === 'PATCH')).toBe(true));
    const sent = requests().find((r) => r.method === 'PATCH')!;
    expect((await sent.json()).headers).toEqual([
      { name: 'X-Tenant', value: 'globex', secret: false },
      { name: 'Authorization', secret: true },
    ]);
  });

  it('lists the headers on the endpoint page, secret ones masked, and reveals one for an admin', async () => {
    const { requests } = fakeDashboard(
      fakeEndpointPageApi({
        endpoint: () => fakeEndpoint({ custom_headers: SAVED }),
        routes: {
          'POST /endpoints/5/headers/reveal': { name: 'Authorization', value: 'Bearer t0k' },
        },
      }),
    );
    renderApp('/endpoints/5');
    const table = await screen.findByRole('table', { name: 'Custom headers' });
    expect(table).toHaveTextContent('X-Tenant');
    expect(table).toHaveTextContent('acme');
    expect(table).toHaveTextContent('Authorization');
    expect(table).toHaveTextContent('secret');
    expect(table).toHaveTextContent('••••9a61');
    expect(screen.queryByText('Bearer t0k')).toBeNull();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Reveal Authorization' }));
    expect(await screen.findByText('Bearer t0k')).toBeInTheDocument();
    expect(screen.getByText(/recorded in the audit log/)).toBeInTheDocument();
    const sent = requests().find((r) => r.url.includes('/headers/reveal'))!;
    expect(await sent.json()).toEqual({ name: 'Authorization' });
  });
});
