import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeDashboard } from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { toApiKeyInput } from './api-keys-overview';

const KEY = {
  id: 4,
  key_prefix: 'capi_abc1234',
  account_id: 3,
  name: 'crm-sync',
  campaign_ids: null,
  created_at: '2026-11-20T10:00:00Z',
  revoked_at: null,
  last_used_at: null,
};
const CAMPAIGNS = [
  { id: 2, name: 'Spring', default_region: 'US', created_at: '', endpoint_count: 0 },
];

describe('toApiKeyInput', () => {
  it('sends no empty name and no campaign list when none is picked', () => {
    expect(toApiKeyInput('  ', [])).toEqual({ name: null, campaign_ids: null });
    expect(toApiKeyInput(' crm ', ['2', '5'])).toEqual({ name: 'crm', campaign_ids: [2, 5] });
  });
});

describe('the API keys page', () => {
  it('lists the keys; a viewer gets neither create nor revoke', async () => {
    fakeDashboard({ 'GET /api-keys': [KEY], 'GET /campaigns': CAMPAIGNS }, 'viewer');
    renderApp('/api-keys');
    const row = (await screen.findByText('crm-sync')).closest('tr')!;
    expect(row).toHaveTextContent('capi_abc1234');
    expect(row).toHaveTextContent('All campaigns');
    expect(row).toHaveTextContent('never');
    expect(screen.queryByRole('button', { name: 'New API key' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Revoke/ })).toBeNull();
  });

  it('creates a key and shows it once, then revokes one after a confirmation', async () => {
    const { requests } = fakeDashboard({
      'GET /api-keys': [KEY],
      'GET /campaigns': CAMPAIGNS,
      'POST /api-keys': { ...KEY, id: 5, name: 'new', api_key: 'capi_secret_key_value' },
      'POST /api-keys/4/revoke': { id: 4, revoked_at: '2026-11-23T10:00:00Z' },
    });
    renderApp('/api-keys');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'New API key' }));
    await user.type(screen.getByLabelText('Name'), 'new');
    await user.click(await screen.findByRole('checkbox', { name: 'Spring' }));
    await user.click(screen.getByRole('button', { name: 'Create API key' }));
    expect(await screen.findByText('capi_secret_key_value')).toBeInTheDocument();
    expect(screen.getByText(/shown only once/)).toBeInTheDocument();
    const create = requests().find((r) => r.method === 'POST')!;
    expect(await create.json()).toEqual({ name: 'new', campaign_ids: [2] });
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByText('capi_secret_key_value')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Revoke crm-sync' }));
    const dialog = await screen.findByRole('dialog');
    expect(requests().filter((r) => r.url.endsWith('/revoke'))).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Revoke the key' }));
    await screen.findByText('crm-sync');
    expect(requests().filter((r) => r.url.endsWith('/api-keys/4/revoke'))).toHaveLength(1);
  });
});
