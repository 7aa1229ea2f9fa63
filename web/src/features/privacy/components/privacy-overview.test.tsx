import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { fakeDashboard } from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { toErasureInput } from './erase-person';
import { countsSummary, requesterLabel } from './erasure-receipts';
import { importSummary } from './suppression-list';

const COUNTS = {
  leads: 2,
  import_rejections: 1,
  spreadsheet_imports: 0,
  events: 2,
  deliveries_cancelled: 1,
  attempts: 0,
  idempotency_records: 0,
  suppression_entries: 1,
};
const RECEIPT = {
  id: '0b6f3c1e-8d2a-4f5b-9c7d-1e2f3a4b5c6d',
  campaign_id: null,
  created_at: '2026-11-28T10:00:00Z',
  requested_by: 'user:7',
  requested_by_email: 'grace@example.com',
  suppressed: true,
  by_phone: true,
  by_email: false,
  counts: COUNTS,
};
const CAMPAIGNS = [
  { id: 2, name: 'Spring', default_region: 'US', created_at: '', endpoint_count: 0 },
];

function adminRoutes(extra: Record<string, unknown> = {}) {
  return {
    'GET /campaigns': CAMPAIGNS,
    'GET /privacy/erasures': [RECEIPT],
    'GET /privacy/suppressions': { entries: 3 },
    ...extra,
  };
}

describe('the privacy page’s wording', () => {
  it('sends no empty phone or email, and no campaign for all campaigns', () => {
    expect(toErasureInput(' +14155550199 ', ' ', '', true)).toEqual({
      phone: '+14155550199',
      campaign_id: null,
      suppress: true,
    });
    expect(toErasureInput('', 'a@b.co', '2', false)).toEqual({
      email: 'a@b.co',
      campaign_id: 2,
      suppress: false,
    });
  });

  it('names who asked and sums up what a receipt removed', () => {
    expect(requesterLabel(RECEIPT)).toBe('grace@example.com');
    expect(requesterLabel({ requested_by: 'cli', requested_by_email: null })).toBe('CLI');
    expect(requesterLabel({ requested_by: 'api_key:12', requested_by_email: null })).toBe(
      'API key #12',
    );
    expect(countsSummary(COUNTS)).toBe(
      '2 leads deleted, 1 rejected row deleted, 2 events redacted, 1 delivery cancelled, 1 suppression entry added',
    );
    expect(
      countsSummary({
        ...COUNTS,
        leads: 0,
        import_rejections: 0,
        events: 0,
        deliveries_cancelled: 0,
        suppression_entries: 0,
      }),
    ).toBe('nothing found');
  });

  it('says what a CSV did, every count', () => {
    expect(
      importSummary({ rows: 5, added: 1, already_listed: 2, invalid: 1, formula_cells: 1 }),
    ).toEqual([
      '1 entry added',
      '2 already listed',
      '1 cell skipped (not a phone or email)',
      '1 formula cell refused',
    ]);
  });
});

describe('the privacy page', () => {
  it('tells a viewer it is for admins, asks the service nothing and hides it from the navigation', async () => {
    const { requests } = fakeDashboard({}, 'viewer');
    renderApp('/privacy');
    expect(await screen.findByText('Admins only')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Privacy' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Erase…' })).toBeNull();
    expect(requests().filter((r) => r.url.includes('/privacy/'))).toHaveLength(0);
  });

  it('shows an admin the receipts, the list’s size and the navigation link', async () => {
    fakeDashboard(adminRoutes());
    renderApp('/privacy');
    const row = (await screen.findByText('grace@example.com')).closest('tr')!;
    expect(row).toHaveTextContent('All campaigns');
    expect(row).toHaveTextContent('by phone');
    expect(row).toHaveTextContent('2 leads deleted');
    expect(await screen.findByTestId('suppression-count')).toHaveTextContent('3 entries');
    expect(screen.getByRole('link', { name: 'Privacy' })).toBeInTheDocument();
  });

  it('erases only after the dialog is confirmed, then shows the receipt’s counts', async () => {
    const { requests } = fakeDashboard(
      adminRoutes({ 'POST /privacy/erasures': json(201, { ...RECEIPT, campaign_id: 2 }) }),
    );
    renderApp('/privacy');
    const user = userEvent.setup();
    await screen.findByText('grace@example.com');
    const form = screen.getByRole('region', { name: 'Erase a person' });
    await user.click(within(form).getByRole('button', { name: 'Erase…' }));
    expect(within(form).getByRole('alert')).toHaveTextContent('Give a phone, an email or both.');

    await user.type(within(form).getByLabelText('Phone'), '+14155550199');
    await user.selectOptions(within(form).getByLabelText('Campaign'), 'Spring');
    expect(within(form).getByLabelText('Add to the suppression list')).toBeChecked();
    await user.click(within(form).getByRole('button', { name: 'Erase…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Erase this person?' });
    expect(dialog).toHaveTextContent('the campaign Spring');
    expect(requests().filter((r) => r.method === 'POST')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Erase permanently' }));

    const result = await screen.findByTestId('erasure-result');
    expect(result).toHaveTextContent(RECEIPT.id);
    expect(within(result).getByTestId('count-leads')).toHaveTextContent('2');
    expect(within(result).getByTestId('count-suppression_entries')).toHaveTextContent('1');
    const erase = requests().find((r) => r.method === 'POST')!;
    expect(await erase.json()).toEqual({ phone: '+14155550199', campaign_id: 2, suppress: true });
  });

  it('shows the service’s error in the dialog and keeps the form', async () => {
    fakeDashboard(
      adminRoutes({
        'POST /privacy/erasures': json(422, {
          error: 'validation_failed',
          message: 'phone must start with + or name a campaign',
        }),
      }),
    );
    renderApp('/privacy');
    const user = userEvent.setup();
    const form = await screen.findByRole('region', { name: 'Erase a person' });
    await user.type(within(form).getByLabelText('Phone'), '4155550199');
    await user.click(within(form).getByRole('button', { name: 'Erase…' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Erase permanently' }));
    expect(await within(dialog).findByText(/must start with \+/)).toBeInTheDocument();
    expect(within(dialog).getByText('Nothing was erased')).toBeInTheDocument();
  });

  it('adds and removes one person and says what changed', async () => {
    const { requests } = fakeDashboard(
      adminRoutes({
        'POST /privacy/suppressions': { added: 1 },
        'POST /privacy/suppressions/remove': { removed: 0 },
      }),
    );
    renderApp('/privacy');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email to add'), 'bob@example.com');
    await user.click(screen.getByRole('button', { name: 'Add to the list' }));
    expect(await screen.findByTestId('suppression-add-result')).toHaveTextContent('Added 1 entry.');
    await user.type(screen.getByLabelText('Phone to remove'), '+14155550100');
    await user.click(screen.getByRole('button', { name: 'Remove from the list' }));
    expect(await screen.findByTestId('suppression-remove-result')).toHaveTextContent(
      'Not on the list',
    );
    const posts = requests().filter((r) => r.method === 'POST');
    expect(await posts[0].json()).toEqual({ email: 'bob@example.com' });
    expect(await posts[1].json()).toEqual({ phone: '+14155550100' });
  });

  it('uploads a CSV as the raw body and shows its counts', async () => {
    const { requests } = fakeDashboard(
      adminRoutes({
        'POST /privacy/suppressions/import': {
          rows: 3,
          added: 1,
          already_listed: 0,
          invalid: 1,
          formula_cells: 1,
        },
      }),
    );
    renderApp('/privacy');
    const user = userEvent.setup();
    const input = await screen.findByLabelText('Suppression CSV');
    const file = new File(['email\n=cmd\nbob@example.com\n'], 'list.csv', { type: 'text/csv' });
    expect(input).toBeInTheDocument();
    await user.upload(document.querySelector<HTMLInputElement>('input[type=file]')!, file);
    await user.click(screen.getByRole('button', { name: 'Upload CSV' }));
    const result = await screen.findByTestId('suppression-import-result');
    expect(result).toHaveTextContent('1 entry added');
    expect(result).toHaveTextContent('1 formula cell refused');
    const upload = requests().find((r) => r.url.endsWith('/privacy/suppressions/import'))!;
    expect(upload.headers.get('content-type')).toBe('application/octet-stream');
    expect(await upload.text()).toBe('email\n=cmd\nbob@example.com\n');
  });
});
