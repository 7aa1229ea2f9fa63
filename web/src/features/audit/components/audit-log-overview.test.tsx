import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeDashboard } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { actorLabel, AuditLogOverview, detailPairs, objectLabel } from './audit-log-overview';

function entry(id: number, action: string) {
  return {
    id,
    created_at: '2026-11-22T10:00:00Z',
    actor: { type: 'user' as const, user_id: 1, email: 'ada@example.com' },
    ip: '203.0.113.7',
    action,
    object_type: 'endpoint',
    object_id: String(id),
    details: {},
  };
}

describe('the audit log', () => {
  it('labels who and what', () => {
    expect(actorLabel({ type: 'cli', user_id: null, email: null })).toBe('cli');
    expect(actorLabel({ type: 'system', user_id: null, email: null })).toBe('system');
    expect(actorLabel({ type: 'user', user_id: 3, email: 'a@b.c' })).toBe('a@b.c');
    expect(
      actorLabel({
        type: 'portal',
        user_id: null,
        email: null,
        label: 'portal:user_42',
        key_prefix: 'capi_Zm9vYmF',
      }),
    ).toBe('portal:user_42 via capi_Zm9vYmF');
    expect(
      actorLabel({
        type: 'portal',
        user_id: null,
        email: null,
        label: 'portal:u',
        key_prefix: null,
      }),
    ).toBe('portal:u via cli');
    expect(
      actorLabel({ type: 'api_key', user_id: null, email: null, key_prefix: 'capi_Zm9vYmF' }),
    ).toBe('API key capi_Zm9vYmF');
    expect(objectLabel({ object_type: 'endpoint', object_id: '12' })).toBe('endpoint 12');
    expect(objectLabel({ object_type: null, object_id: null })).toBe('—');
  });

  it('lists entries newest first and pages with next_cursor', async () => {
    const { requests } = fakeDashboard({
      'GET /audit-log': (_request: Request, url: URL) =>
        url.searchParams.get('cursor') === 'c2'
          ? { items: [entry(1, 'endpoint.create')], next_cursor: null }
          : { items: [entry(3, 'secret.rotate'), entry(2, 'endpoint.update')], next_cursor: 'c2' },
    });
    renderWithProviders(<AuditLogOverview />);
    const table = await screen.findByRole('table', { name: 'Audit log' });
    expect(within(table).getByText('secret.rotate')).toBeInTheDocument();
    expect(within(table).getAllByText('203.0.113.7')).toHaveLength(2);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    expect(await within(table).findByText('endpoint.create')).toBeInTheDocument();
    expect(screen.getAllByTestId('audit-row').map((row) => row.textContent)).toEqual([
      expect.stringContaining('secret.rotate'),
      expect.stringContaining('endpoint.update'),
      expect.stringContaining('endpoint.create'),
    ]);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(new URL(requests().at(-1)!.url).searchParams.get('cursor')).toBe('c2');
  });
});

describe('the audit log’s filters and details', () => {
  it('shows details as readable fields, not raw JSON', () => {
    expect(
      detailPairs({
        changes: { enabled: false, url: 'https://x.test/h' },
        events: ['lead.created', 'call.ended'],
        recovery_id: 4,
        empty: {},
      }),
    ).toEqual([
      ['changes.enabled', 'false'],
      ['changes.url', 'https://x.test/h'],
      ['events', 'lead.created, call.ended'],
      ['recovery_id', '4'],
      ['empty', '{}'],
    ]);
  });

  it('filters by action and by user, asking the service for that page only, and clears', async () => {
    const { requests } = fakeDashboard({
      'GET /audit-log': (_request: Request, url: URL) =>
        url.searchParams.get('action') === 'secret.reveal'
          ? { items: [entry(9, 'secret.reveal')], next_cursor: null }
          : {
              items: [{ ...entry(3, 'endpoint.update'), details: { changes: { enabled: false } } }],
              next_cursor: null,
            },
    });
    renderWithProviders(<AuditLogOverview />);
    const log = () => screen.getByRole('table', { name: 'Audit log' });
    expect(await screen.findByText('changes.enabled:')).toBeInTheDocument();
    expect(screen.queryByText(/\{"changes"/)).toBeNull();
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Action'), 'secret.reveal');
    await user.type(screen.getByLabelText(/^User/), ' Ada@Example.com ');
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    await waitFor(() => expect(within(log()).getByText('secret.reveal')).toBeInTheDocument());
    const asked = new URL(requests().at(-1)!.url).searchParams;
    expect(asked.get('action')).toBe('secret.reveal');
    expect(asked.get('user')).toBe('Ada@Example.com');
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(within(log()).getByText('endpoint.update')).toBeInTheDocument());
    // The unfiltered log, as first read (no filter sent).
    const first = new URL(requests()[0].url).searchParams;
    expect(first.has('action')).toBe(false);
    expect(first.has('user')).toBe(false);
    expect(screen.queryByRole('button', { name: 'Clear filters' })).toBeNull();
  });
});
