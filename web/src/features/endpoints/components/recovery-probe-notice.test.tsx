import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeDashboard, fakeEndpoint, fakeEndpointPageApi } from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';

const DISABLED_AUTO = {
  is_enabled: false,
  disabled_reason: 'auto' as const,
  disabled_at: '2026-11-24T09:30:00Z',
  last_disabled_at: '2026-11-24T09:30:00Z',
  last_disabled_reason: 'auto' as const,
  auto_recover: true,
};

describe('endpoints that come back by themselves (docs/webhooks.md#endpoints-that-come-back-by-themselves)', () => {
  it('says when the next probe of an endpoint disabled automatically is due, and how many were sent', async () => {
    fakeDashboard(
      fakeEndpointPageApi({
        endpoint: () =>
          fakeEndpoint({
            ...DISABLED_AUTO,
            recovery_probe: {
              since: '2026-11-24T09:30:00Z',
              next_probe_at: '2026-11-24T16:30:00Z',
              probes: 3,
              last_probe_at: '2026-11-24T12:30:00Z',
              gave_up_at: null,
            },
          }),
      }),
      'viewer',
    );
    renderApp('/endpoints/5');
    const notice = await screen.findByTestId('recovery-probe');
    expect(notice).toHaveTextContent(
      /^It comes back by itself: next probe at .+ \(3 probes so far, the last at .+\)\. A signed ping answered with a 2xx enables it and replays what it missed\.$/,
    );
    const times = within(notice)
      .getAllByText(/2026/)
      .map((node) => node.closest('time')?.getAttribute('datetime'));
    expect(times).toEqual(['2026-11-24T16:30:00.000Z', '2026-11-24T12:30:00.000Z']);
    expect(screen.getByTestId('endpoint-auto-recover')).toHaveTextContent(
      'Comes back automatically: on',
    );
  });

  it('says since when probing gave up', async () => {
    fakeDashboard(
      fakeEndpointPageApi({
        endpoint: () =>
          fakeEndpoint({
            ...DISABLED_AUTO,
            recovery_probe: {
              since: '2026-10-24T09:30:00Z',
              next_probe_at: null,
              probes: 33,
              last_probe_at: '2026-11-23T09:00:00Z',
              gave_up_at: '2026-11-23T09:00:01Z',
            },
          }),
      }),
    );
    renderApp('/endpoints/5');
    const notice = await screen.findByTestId('recovery-probe');
    expect(notice).toHaveTextContent(
      /^Gave up on .+: 33 probes so far, the last at .+, none answered\. Enable it by hand once the receiver is back\.$/,
    );
  });

  it('shows no probing for an endpoint that is not probed', async () => {
    fakeDashboard(fakeEndpointPageApi({ endpoint: () => fakeEndpoint() }));
    renderApp('/endpoints/5');
    expect(await screen.findByTestId('endpoint-auto-recover')).toHaveTextContent(
      'Comes back automatically: off',
    );
    expect(screen.queryByTestId('recovery-probe')).toBeNull();
  });

  it('switches “Come back automatically” on in the edit form and sends auto_recover', async () => {
    const { requests } = fakeDashboard({
      ...fakeEndpointPageApi({ endpoint: () => fakeEndpoint() }),
      'PATCH /endpoints/5': fakeEndpoint({ auto_recover: true }),
    });
    renderApp('/endpoints/5/edit');
    const user = userEvent.setup();
    await screen.findByRole('button', { name: 'Save changes' });
    const toggle = screen.getByRole('switch', { name: /^Come back automatically/ });
    expect(toggle).not.toBeChecked();
    await user.click(toggle);
    expect(toggle).toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(requests().some((r) => r.method === 'PATCH')).toBe(true));
    const sent = requests().find((r) => r.method === 'PATCH')!;
    expect(await sent.json()).toMatchObject({ auto_recover: true });
  });
});
