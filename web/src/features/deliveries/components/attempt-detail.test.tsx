import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeAttempt, fakeDashboard, fakeEndpointPageApi } from '../../../testing/fake-dashboard';
import { renderApp, renderWithProviders } from '../../../testing/render';
import { DeliveryState } from './attempt-detail';

describe('an attempt’s delivery state', () => {
  it('shows when a pending delivery is retried next, in the viewer’s time with UTC in the markup', () => {
    renderWithProviders(
      <DeliveryState
        delivery={{ status: 'pending', attempt_count: 2, next_attempt_at: '2026-11-27T10:30:00Z' }}
      />,
    );
    const state = screen.getByTestId('delivery-state');
    expect(state).toHaveTextContent('Pending');
    expect(state).toHaveTextContent('2 attempts so far');
    expect(state).toHaveTextContent(/Next retry .*2026/);
    expect(state.querySelector('time')).toHaveAttribute('datetime', '2026-11-27T10:30:00.000Z');
  });

  it('says a failed delivery is not retried any more, and that a ping belongs to no delivery', () => {
    const { unmount } = renderWithProviders(
      <DeliveryState delivery={{ status: 'failed', attempt_count: 8, next_attempt_at: null }} />,
    );
    expect(screen.getByTestId('delivery-state')).toHaveTextContent(
      'Failed for good: its retry schedule ran out.',
    );
    unmount();
    renderWithProviders(<DeliveryState delivery={null} />);
    expect(screen.getByTestId('delivery-state')).toHaveTextContent(
      'it belongs to no delivery and is never retried',
    );
  });
});

describe('an attempt’s request', () => {
  it('shows the custom headers sent, a secret one’s value redacted and said to be', async () => {
    fakeDashboard(
      fakeEndpointPageApi({
        routes: {
          'GET /endpoints/5/attempts': { items: [fakeAttempt(1)], next_cursor: null },
          'GET /attempts/1': {
            ...fakeAttempt(1),
            delivery: null,
            request: {
              url: 'https://crm.example.com/hooks',
              headers: {
                'webhook-id': 'evt-1',
                'X-Tenant': 'acme',
                Authorization: '[redacted]',
              },
              body: '{"type":"ping"}',
            },
          },
        },
      }),
    );
    renderApp('/endpoints/5');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Open attempt 1' }));
    const drawer = await screen.findByRole('dialog');
    expect(await within(drawer).findByText('X-Tenant')).toBeInTheDocument();
    expect(within(drawer).getByText('acme')).toBeInTheDocument();
    expect(within(drawer).getByText('[redacted]')).toBeInTheDocument();
    expect(within(drawer).getByTestId('redacted-note')).toHaveTextContent(
      'stands for the value of a secret custom header',
    );
  });

  it('shows the method a transformation chose and the version that shaped the request', async () => {
    fakeDashboard(
      fakeEndpointPageApi({
        routes: {
          'GET /endpoints/5/attempts': { items: [fakeAttempt(1)], next_cursor: null },
          'GET /attempts/1': {
            ...fakeAttempt(1),
            delivery: null,
            request: {
              method: 'PUT',
              transformation_version: 3,
              url: 'https://crm.example.com/contacts/7',
              headers: { 'webhook-id': 'evt-1' },
              body: '{"properties":{"phone":"+12125550100"}}',
            },
          },
        },
      }),
    );
    renderApp('/endpoints/5');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Open attempt 1' }));
    const drawer = await screen.findByRole('dialog');
    expect(await within(drawer).findByText(/^PUT/)).toHaveTextContent(
      'PUT https://crm.example.com/contacts/7',
    );
    expect(within(drawer).getByTestId('transformation-version')).toHaveTextContent(
      'Shaped by transformation version 3',
    );
  });
});

describe('redelivering from the attempt drawer', () => {
  it('refreshes the delivery state the drawer shows: one more attempt so far', async () => {
    let attempts = 1;
    fakeDashboard(
      fakeEndpointPageApi({
        routes: {
          'GET /endpoints/5/attempts': {
            items: [fakeAttempt(1, { success: false, status_code: 500 })],
            next_cursor: null,
          },
          'GET /attempts/1': () => ({
            ...fakeAttempt(1, { success: false, status_code: 500 }),
            delivery: { status: 'failed', attempt_count: attempts, next_attempt_at: null },
            request: null,
          }),
          'POST /deliveries/101/redeliver': () => {
            attempts++;
            return { success: true, status_code: 200, duration_ms: 9, error: null };
          },
        },
      }),
    );
    renderApp('/endpoints/5');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Open attempt 1' }));
    const drawer = await screen.findByRole('dialog');
    expect(await within(drawer).findByTestId('delivery-state')).toHaveTextContent(
      '1 attempt so far',
    );
    await user.click(within(drawer).getByRole('button', { name: 'Redeliver' }));
    expect(await within(drawer).findByRole('status')).toHaveTextContent('Redelivered: succeeded');
    await waitFor(() =>
      expect(within(drawer).getByTestId('delivery-state')).toHaveTextContent('2 attempts so far'),
    );
  });
});
