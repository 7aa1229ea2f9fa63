import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { setCsrfToken } from '../../../lib/api-client';
import { fakeSession } from '../../../testing/fake-api';
import { fakeDashboard, fakeEndpointPageApi, fakeRecovery } from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { fromLocalInput, toLocalInput } from './bulk-recovery';

const SINCE = '2026-11-24T09:00:00.000Z';
const recovery = fakeRecovery;

describe('the bulk recovery card', () => {
  afterEach(() => setCsrfToken(null));

  it('previews, redelivers after a confirmation, then follows the progress to done', async () => {
    let reads = 0;
    let started = false;
    const { requests } = fakeDashboard(
      fakeEndpointPageApi({
        recoveries: () => {
          if (!started) return [];
          reads += 1;
          return [
            reads < 2
              ? recovery({ processed: 1 })
              : recovery({ status: 'done', processed: 3, finished_at: '2026-11-25T10:00:05Z' }),
          ];
        },
        routes: {
          'POST /endpoints/5/recoveries': () => {
            started = true;
            return recovery();
          },
        },
      }),
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    const card = within(await screen.findByRole('region', { name: 'Bulk recovery' }));
    const input = card.getByLabelText('Failed since');
    await user.clear(input);
    await user.type(input, toLocalInput(new Date(SINCE)));
    await user.click(card.getByRole('button', { name: 'Preview' }));
    expect(await card.findByTestId('recovery-preview')).toHaveTextContent(
      /^3 failed deliveries since/,
    );
    const preview = requests().find((r) => r.url.includes('/recovery/preview'))!;
    expect(new URL(preview.url).searchParams.get('since')).toBe(SINCE);

    await user.click(card.getByRole('button', { name: 'Redeliver 3 failed deliveries' }));
    const dialog = await screen.findByRole('dialog');
    expect(requests().some((r) => r.method === 'POST')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Redeliver' }));

    const progress = await card.findByRole('progressbar', { name: 'Recovery progress' });
    expect(progress).toBeInTheDocument();
    const sent = requests().find((r) => r.method === 'POST')!;
    expect(await sent.json()).toEqual({ since: SINCE });
    expect(sent.headers.get('x-csrf-token')).toBe(fakeSession().csrf_token);
    // Polled while running, until done.
    expect(await card.findByText('3 of 3', {}, { timeout: 4_000 })).toBeInTheDocument();
    expect(card.getByRole('progressbar', { name: 'Recovery progress' })).toHaveAttribute(
      'aria-valuenow',
      '100',
    );
    expect(card.queryByRole('button', { name: 'Cancel recovery' })).toBeNull();
  });

  it('previews the failed deliveries and those waiting on a retry apart, and redelivers both', async () => {
    const { requests } = fakeDashboard(
      fakeEndpointPageApi({
        routes: {
          'GET /endpoints/5/recovery/preview': (_request: Request, url: URL) => ({
            since: new Date(url.searchParams.get('since')!).toISOString(),
            failed_count: 3,
            retrying_count: 2,
            skipped_count: 0,
          }),
          'POST /endpoints/5/recoveries': () => recovery({ total: 5 }),
        },
      }),
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    const card = within(await screen.findByRole('region', { name: 'Bulk recovery' }));
    await user.click(card.getByRole('button', { name: 'Preview' }));
    expect(await card.findByTestId('recovery-preview')).toHaveTextContent(
      /^3 failed deliveries and 2 pending deliveries waiting on a retry since/,
    );
    expect(card.getByTestId('recovery-preview-kinds')).toHaveTextContent(
      /Waiting on a retry: their last attempt failed; their next attempt moves to now/,
    );
    await user.click(card.getByRole('button', { name: 'Redeliver 5 deliveries now' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent(/one waiting on a retry goes on with its retries/);
    await user.click(within(dialog).getByRole('button', { name: 'Redeliver' }));
    await waitFor(() => expect(requests().some((r) => r.method === 'POST')).toBe(true));
  });

  it('cancels a running recovery', async () => {
    let cancelled = false;
    const { requests } = fakeDashboard(
      fakeEndpointPageApi({
        recoveries: () => [recovery({ processed: 1, status: cancelled ? 'cancelled' : 'running' })],
        routes: {
          'POST /recoveries/4/cancel': () => {
            cancelled = true;
            return recovery({ processed: 1, status: 'cancelled' });
          },
        },
      }),
    );
    renderApp('/endpoints/5');
    const card = within(await screen.findByRole('region', { name: 'Bulk recovery' }));
    expect(await card.findByText('1 of 3')).toBeInTheDocument();
    await userEvent.setup().click(card.getByRole('button', { name: 'Cancel recovery' }));
    await waitFor(() => expect(card.queryByRole('button', { name: 'Cancel recovery' })).toBeNull());
    expect(card.getByText(/^Cancelled/)).toBeInTheDocument();
    expect(
      requests()
        .filter((r) => r.method === 'POST')
        .map((r) => new URL(r.url).pathname),
    ).toEqual(['/dashboard/api/recoveries/4/cancel']);
  });

  it('lets a viewer preview and follow progress, with no redeliver or cancel control', async () => {
    fakeDashboard(
      fakeEndpointPageApi({ recoveries: () => [recovery({ processed: 2 })] }),
      'viewer',
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    const card = within(await screen.findByRole('region', { name: 'Bulk recovery' }));
    expect(await card.findByText('2 of 3')).toBeInTheDocument();
    await user.click(card.getByRole('button', { name: 'Preview' }));
    expect(await card.findByTestId('recovery-preview')).toHaveTextContent(/^3 failed deliveries/);
    expect(card.queryByRole('button', { name: /^Redeliver/ })).toBeNull();
    expect(card.queryByRole('button', { name: 'Cancel recovery' })).toBeNull();
  });

  it('converts the input’s local time to UTC and back', () => {
    const date = new Date(2026, 10, 24, 9, 30);
    expect(toLocalInput(date)).toBe('2026-11-24T09:30');
    expect(fromLocalInput('2026-11-24T09:30')).toBe(date.toISOString());
    expect(fromLocalInput('')).toBeNull();
    expect(fromLocalInput('not a time')).toBeNull();
  });
});
