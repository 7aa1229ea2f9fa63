import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { setCsrfToken } from '../../../lib/api-client';
import {
  EVENT_TYPES,
  fakeDashboard,
  fakeEndpoint,
  fakeLedger,
} from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';

const PUBLIC_KEY = 'whpk_mh6C7rme3ZqSHmAv3wOUyiqNoEoZt5/tj57Cx3Q4K3M=';
const PREVIOUS_KEY = 'whpk_d1qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=';
const CAMPAIGNS = [
  { id: 2, name: 'Spring', default_region: 'US', created_at: '', endpoint_count: 1 },
];

function pageApi(endpoint: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    'GET /campaigns': CAMPAIGNS,
    'GET /endpoints/5': fakeEndpoint(endpoint),
    'GET /event-types': EVENT_TYPES,
    'GET /endpoints/5/attempts': { items: [], next_cursor: null },
    'GET /endpoints/5/ledger': fakeLedger(7, {}),
    ...extra,
  };
}

const asymmetric = {
  signature_scheme: 'asymmetric',
  public_key: PUBLIC_KEY,
  previous_public_key: PREVIOUS_KEY,
  previous_secret_expires_at: '2026-11-28T10:00:00Z',
};

describe('an asymmetric endpoint’s keys', () => {
  afterEach(() => setCsrfToken(null));

  it('shows the public key and the previous one with its expiry, each found by its label and copyable, and no secret controls', async () => {
    fakeDashboard(pageApi(asymmetric));
    renderApp('/endpoints/5');
    expect(await screen.findByLabelText('Public key')).toHaveValue(PUBLIC_KEY);
    expect(screen.getByLabelText('Public key')).toHaveAttribute('readonly');
    expect(screen.getByLabelText('Previous public key')).toHaveValue(PREVIOUS_KEY);
    expect(screen.getByLabelText('Previous public key')).toHaveAccessibleDescription(
      /Still signs every delivery until/,
    );
    expect(screen.getByRole('button', { name: 'Copy public key' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy previous public key' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Rotate key pair' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Switch to symmetric' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reveal secret' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Rotate secret' })).toBeNull();
  });

  it('says until when the previous whsec_ secret still signs after a switch from symmetric', async () => {
    fakeDashboard(
      pageApi({
        signature_scheme: 'asymmetric',
        public_key: PUBLIC_KEY,
        previous_public_key: null,
        previous_secret_expires_at: '2026-11-28T10:00:00Z',
      }),
    );
    renderApp('/endpoints/5');
    expect(await screen.findByLabelText('Public key')).toHaveValue(PUBLIC_KEY);
    expect(screen.queryByLabelText('Previous public key')).toBeNull();
    expect(screen.getByTestId('previous-secret')).toHaveTextContent(
      /previous signing secret .* still signs every delivery until/,
    );
  });

  it('shows a viewer the public key, with no control to change it', async () => {
    fakeDashboard(pageApi(asymmetric), 'viewer');
    renderApp('/endpoints/5');
    expect(await screen.findByLabelText('Public key')).toHaveValue(PUBLIC_KEY);
    expect(screen.queryByRole('button', { name: 'Rotate key pair' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Switch to/ })).toBeNull();
  });

  it('rotates the key pair only after a confirmation', async () => {
    const { requests } = fakeDashboard(
      pageApi(
        { signature_scheme: 'asymmetric', public_key: PUBLIC_KEY },
        {
          'POST /endpoints/5/secret/rotate': {
            secret: null,
            signature_scheme: 'asymmetric',
            public_key: PREVIOUS_KEY,
            previous_secret_expires_at: '2026-11-28T10:00:00Z',
          },
        },
      ),
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Rotate key pair' }));
    const dialog = await screen.findByRole('dialog');
    expect(requests().some((r) => r.method === 'POST')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Rotate now' }));
    await waitFor(() =>
      expect(requests().some((r) => r.method === 'POST' && r.url.endsWith('/secret/rotate'))).toBe(
        true,
      ),
    );
  });

  it('switches a symmetric endpoint to asymmetric after a confirmation, sending the scheme', async () => {
    const { requests } = fakeDashboard(
      pageApi(
        {},
        {
          'POST /endpoints/5/signature-scheme': {
            secret: null,
            signature_scheme: 'asymmetric',
            public_key: PUBLIC_KEY,
            previous_secret_expires_at: '2026-11-28T10:00:00Z',
          },
        },
      ),
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    expect(await screen.findByRole('button', { name: 'Reveal secret' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Public key')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Switch to asymmetric' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Switch now' }));
    await waitFor(() => expect(requests().some((r) => r.method === 'POST')).toBe(true));
    const sent = requests().find((r) => r.method === 'POST')!;
    expect(sent.url).toMatch(/\/endpoints\/5\/signature-scheme$/);
    expect(await sent.json()).toEqual({ signature_scheme: 'asymmetric' });
  });

  it('creates an asymmetric endpoint: the scheme is sent, and the public key shown instead of a secret', async () => {
    const { requests } = fakeDashboard({
      'GET /campaigns': CAMPAIGNS,
      'GET /event-types': EVENT_TYPES,
      'POST /campaigns/2/endpoints': {
        endpoint: fakeEndpoint({ id: 9, signature_scheme: 'asymmetric', public_key: PUBLIC_KEY }),
        secret: null,
      },
    });
    renderApp('/campaigns/2/endpoints/new');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('URL'), 'https://x.test/hooks');
    await user.click(await screen.findByRole('checkbox', { name: 'lead.created' }));
    expect(screen.getByRole('radio', { name: /Symmetric/ })).toBeChecked();
    await user.click(screen.getByRole('radio', { name: /Asymmetric/ }));
    await user.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(await screen.findByLabelText('Public key')).toHaveValue(PUBLIC_KEY);
    expect(screen.queryByText(/shown only once/)).toBeNull();
    const sent = requests().find((r) => r.method === 'POST')!;
    expect(await sent.json()).toMatchObject({ signature_scheme: 'asymmetric' });
  });
});
