import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeDashboard, fakeLedger } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { ThrottleNote } from './charts-page';

describe('the endpoint charts’ throttle note', () => {
  it('says the deliveries waiting on the throttle are pending, not failed, and not in the charts', async () => {
    fakeDashboard({
      'GET /endpoints/5/ledger': () =>
        fakeLedger(
          1,
          { '2026-11-25': { delivered: 3, pending: 12, throttled: 12 } },
          {
            max_deliveries_per_second: 5,
            max_in_flight: null,
          },
        ),
    });
    renderWithProviders(<ThrottleNote endpointId={5} />);
    expect(await screen.findByTestId('charts-throttle')).toHaveTextContent(
      '12 waiting on throttle (limit 5/s). Deliveries waiting on the throttle are pending, not failed: the charts count delivery attempts, and those have none until they are sent.',
    );
  });

  it('says nothing for an endpoint without a throttle', async () => {
    const { requests } = fakeDashboard({
      'GET /endpoints/5/ledger': () => fakeLedger(1, { '2026-11-25': { delivered: 3 } }),
    });
    renderWithProviders(<ThrottleNote endpointId={5} />);
    await waitFor(() => expect(requests().some((r) => r.url.includes('/ledger'))).toBe(true));
    expect(screen.queryByTestId('charts-throttle')).toBeNull();
  });
});
