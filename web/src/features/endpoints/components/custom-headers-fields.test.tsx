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
import { json } from '../../../testing/fake-api';
import { ApiError } from '../../../lib/api-errors';
import { headerRowError, headerRows, headersInput } from './custom-headers-fields';

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

describe('the service’s refusal of a custom header', () => {
  const rows = [
    { name: 'X-Tenant', value: 'acme', secret: false, savedMask: null },
    { name: '', value: '', secret: false, savedMask: null },
    { name: 'Host', value: 'evil.test', secret: false, savedMask: null },
    { name: 'x-tenant', value: 'globex', secret: false, savedMask: null },
    { name: '', value: 'orphan', secret: false, savedMask: null },
  ];
  const refusal = (message: string) => new ApiError(422, 'validation_failed', message);

  it('finds the row by the name the message quotes, or by its number among the rows sent', () => {
    expect(
      headerRowError(
        refusal('header "Host" cannot be set: the service sets it from the endpoint URL'),
        rows,
      ),
    ).toEqual({
      index: 2,
      field: 'name',
      message: 'header "Host" cannot be set: the service sets it from the endpoint URL',
    });
    // Given twice: the later row is the one to change.
    expect(
      headerRowError(refusal('header "x-tenant" is given twice (header names ignore case)'), rows),
    ).toMatchObject({ index: 3, field: 'name' });
    expect(
      headerRowError(refusal('header "X-Tenant": the value must not contain CR, LF or NUL'), rows),
    ).toMatchObject({ index: 0, field: 'value' });
    // The blank second row is not sent: "header 4" is the fifth row.
    expect(headerRowError(refusal('header 4 needs a name'), rows)).toMatchObject({
      index: 4,
      field: 'name',
    });
    const long = `X-${'a'.repeat(60)}`;
    expect(
      headerRowError(refusal(`header name "${long.slice(0, 40)}…" is longer than 256 characters`), [
        { name: long, value: 'v', secret: false, savedMask: null },
      ]),
    ).toMatchObject({ index: 0, field: 'name' });
  });

  it('leaves an error about all the headers, or about something else, to the banner', () => {
    expect(
      headerRowError(refusal('headers: at most 20 custom headers are allowed, got 21'), rows),
    ).toBeNull();
    expect(headerRowError(refusal('url must not point to a private address'), rows)).toBeNull();
    expect(headerRowError(new ApiError(500, 'internal_error', 'header "Host"'), rows)).toBeNull();
  });

  it('says a refused header beside its row, not above the form, until the row is changed', async () => {
    fakeDashboard({
      'GET /campaigns': [
        { id: 2, name: 'Spring', default_region: 'US', created_at: '', endpoint_count: 0 },
      ],
      'GET /event-types': EVENT_TYPES,
      'POST /campaigns/2/endpoints': json(422, {
        error: 'validation_failed',
        message: 'header "Host" cannot be set: the service sets it from the endpoint URL',
      }),
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
    await user.type(screen.getByLabelText('Header 2 name'), 'Host');
    await user.type(screen.getByLabelText('Header 2 value'), 'evil.test');
    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    await waitFor(() =>
      expect(screen.getByLabelText('Header 2 name')).toHaveAccessibleDescription(
        /header "Host" cannot be set/,
      ),
    );
    expect(screen.getByLabelText('Header 1 name')).not.toHaveAccessibleDescription(/Host/);
    expect(screen.queryByRole('alert')).toBeNull();
    await user.clear(screen.getByLabelText('Header 2 name'));
    await user.type(screen.getByLabelText('Header 2 name'), 'X-Host');
    expect(screen.getByLabelText('Header 2 name')).not.toHaveAccessibleDescription(/cannot be set/);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
