import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { setCsrfToken } from '../../../lib/api-client';
import { fakeSession } from '../../../testing/fake-api';
import {
  fakeDashboard,
  fakeEndpoint,
  fakeEndpointPageApi,
  fakeRecovery,
  type FakeRoutes,
} from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { dismissedKey } from './replay-offer';

const DISABLED_AT = '2026-11-24T09:00:00.000Z';

/** A replay of what endpoint 5 missed since DISABLED_AT, running. */
const replay = (overrides: Record<string, unknown> = {}) =>
  fakeRecovery({ id: 9, scope: 'missed', since: DISABLED_AT, total: 5, ...overrides });

/** An endpoint enabled again after being disabled at DISABLED_AT. */
const reenabled = (reason = 'gone') =>
  fakeEndpoint({ last_disabled_at: DISABLED_AT, last_disabled_reason: reason });

/**
 * The page's API around `endpoint()`, the recoveries answered by `recoveries()` at each read; the
 * preview counts 3 failed and 2 skipped deliveries.
 */
const offerApi = (
  endpoint: () => unknown,
  recoveries: () => unknown[] = () => [],
  routes: FakeRoutes = {},
) => fakeEndpointPageApi({ endpoint, recoveries, routes });

describe('the replay offer', () => {
  afterEach(() => {
    setCsrfToken(null);
    window.localStorage.clear();
  });

  it('offers, after an admin enables a disabled endpoint, the count first, then replays and follows the progress to done', async () => {
    let enabled = false;
    let started = false;
    let reads = 0;
    const { requests } = fakeDashboard(
      offerApi(
        () =>
          enabled
            ? reenabled()
            : fakeEndpoint({
                is_enabled: false,
                disabled_reason: 'gone',
                disabled_at: DISABLED_AT,
                last_disabled_at: DISABLED_AT,
                last_disabled_reason: 'gone',
              }),
        () => {
          if (!started) return [];
          reads += 1;
          return [
            reads < 2
              ? replay({ processed: 2 })
              : replay({ status: 'done', processed: 5, finished_at: '2026-11-25T10:00:05Z' }),
          ];
        },
        {
          'PATCH /endpoints/5': () => {
            enabled = true;
            return reenabled();
          },
          'POST /endpoints/5/recoveries': () => {
            started = true;
            return replay();
          },
        },
      ),
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Enable endpoint' }));
    const patch = requests().find((r) => r.method === 'PATCH')!;
    expect(await patch.json()).toEqual({ enabled: true });

    const offer = within(await screen.findByRole('region', { name: 'Replay missed deliveries' }));
    expect(offer.getByTestId('replay-count')).toHaveTextContent(
      /^Replay 5 missed deliveries since/,
    );
    expect(offer.getByText(/answered 410 Gone/)).toBeInTheDocument();
    expect(
      offer.getByText(/2 deliveries were skipped or dropped and 3 deliveries failed/),
    ).toBeInTheDocument();
    const preview = requests().find((r) => r.url.includes('/recovery/preview'))!;
    expect(new URL(preview.url).searchParams.get('since')).toBe(DISABLED_AT);

    await user.click(offer.getByRole('button', { name: 'Replay 5 missed deliveries' }));
    const sent = requests().find((r) => r.method === 'POST')!;
    expect(await sent.json()).toEqual({ since: DISABLED_AT, scope: 'missed' });
    expect(sent.headers.get('x-csrf-token')).toBe(fakeSession().csrf_token);
    expect(await offer.findByRole('progressbar', { name: 'Replay progress' })).toBeInTheDocument();
    // Polled while running, until done.
    expect(await offer.findByText('5 of 5', {}, { timeout: 4_000 })).toBeInTheDocument();
    expect(offer.getByText(/^Done: missed deliveries since/)).toBeInTheDocument();
    expect(offer.getByRole('progressbar', { name: 'Replay progress' })).toHaveAttribute(
      'aria-valuenow',
      '100',
    );
    expect(offer.queryByRole('button', { name: 'Cancel replay' })).toBeNull();
    // The bulk recovery card shows the same recovery as a replay.
    const card = within(screen.getByRole('region', { name: 'Bulk recovery' }));
    expect(card.getByText(/^Done: missed deliveries since/)).toBeInTheDocument();

    await user.click(offer.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('region', { name: 'Replay missed deliveries' })).toBeNull();
  });

  it('is dismissed for that disabled period in this browser', async () => {
    fakeDashboard(offerApi(() => reenabled('manual')));
    const first = renderApp('/endpoints/5');
    const offer = within(await screen.findByRole('region', { name: 'Replay missed deliveries' }));
    expect(offer.getByText(/disabled by an admin/)).toBeInTheDocument();
    await userEvent.setup().click(offer.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('region', { name: 'Replay missed deliveries' })).toBeNull();
    expect(window.localStorage.getItem(dismissedKey(5, DISABLED_AT))).not.toBeNull();
    first.unmount();

    const { requests } = fakeDashboard(offerApi(() => reenabled('manual')));
    renderApp('/endpoints/5');
    expect(await screen.findByRole('region', { name: 'Bulk recovery' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Replay missed deliveries' })).toBeNull();
    expect(requests().some((r) => r.url.includes('/recovery/preview'))).toBe(false);
  });

  it('shows nothing when nothing was missed, or when that period was replayed before', async () => {
    for (const [preview, recoveries] of [
      [{ since: DISABLED_AT, failed_count: 0, retrying_count: 0, skipped_count: 0 }, []],
      [
        { since: DISABLED_AT, failed_count: 1, retrying_count: 0, skipped_count: 0 },
        [replay({ status: 'done', processed: 5, finished_at: '2026-11-25T10:00:05Z' })],
      ],
    ] as const) {
      const { requests } = fakeDashboard(
        offerApi(
          () => reenabled(),
          () => [...recoveries],
          { 'GET /endpoints/5/recovery/preview': preview },
        ),
      );
      const view = renderApp('/endpoints/5');
      await screen.findByRole('region', { name: 'Bulk recovery' });
      await waitFor(() =>
        expect(requests().some((r) => r.url.includes('/recovery/preview'))).toBe(true),
      );
      // Time for the answers to render whatever they would.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(screen.queryByRole('region', { name: 'Replay missed deliveries' })).toBeNull();
      view.unmount();
    }
  });

  it('follows a running bulk recovery the start answered, and says so', async () => {
    const bulk = replay({ id: 3, scope: 'failed', since: '2026-11-20T00:00:00.000Z', total: 50 });
    fakeDashboard(
      offerApi(
        () => reenabled(),
        () => [bulk],
        { 'POST /endpoints/5/recoveries': bulk },
      ),
    );
    renderApp('/endpoints/5');
    const offer = within(await screen.findByRole('region', { name: 'Replay missed deliveries' }));
    await userEvent
      .setup()
      .click(offer.getByRole('button', { name: 'Replay 5 missed deliveries' }));
    expect(await offer.findByText(/A bulk recovery of this endpoint is running/)).toBeVisible();
    expect(offer.getByRole('button', { name: 'Replay 5 missed deliveries' })).toBeInTheDocument();
  });

  it('is not shown to a viewer, who gets no enable control either', async () => {
    fakeDashboard(
      offerApi(() =>
        fakeEndpoint({
          is_enabled: false,
          disabled_reason: 'manual',
          disabled_at: DISABLED_AT,
          last_disabled_at: DISABLED_AT,
          last_disabled_reason: 'manual',
        }),
      ),
      'viewer',
    );
    const disabled = renderApp('/endpoints/5');
    expect(await screen.findByTestId('disabled-notice')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Enable endpoint' })).toBeNull();
    disabled.unmount();

    const { requests } = fakeDashboard(
      offerApi(() => reenabled()),
      'viewer',
    );
    renderApp('/endpoints/5');
    expect(await screen.findByRole('region', { name: 'Bulk recovery' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Replay missed deliveries' })).toBeNull();
    expect(requests().some((r) => r.url.includes('/recovery/preview'))).toBe(false);
  });
});
