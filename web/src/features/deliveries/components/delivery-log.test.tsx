import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, fakeAttempt, fakeDashboard } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { DeliveryLog } from './delivery-log';

/** A log of 3 attempts served 2 a page, the cursor being the next index. */
function pagedLog() {
  const all = [
    fakeAttempt(3),
    fakeAttempt(2, { success: false, status_code: 500, error: 'HTTP 500' }),
    fakeAttempt(1),
  ];
  return fakeDashboard({
    'GET /event-types': EVENT_TYPES,
    'GET /endpoints/5/attempts': (_request, url) => {
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const outcome = url.searchParams.get('outcome');
      const items = all.filter((a) => !outcome || (outcome === 'failed') !== a.success);
      const page = items.slice(start, start + 2);
      return { items: page, next_cursor: start + 2 < items.length ? String(start + 2) : null };
    },
  });
}

describe('the delivery log', () => {
  it('pages with next_cursor behind Load more, newest first', async () => {
    const { requests } = pagedLog();
    renderWithProviders(<DeliveryLog endpointId={5} />);
    expect(await screen.findByText('evt-3')).toBeInTheDocument();
    expect(screen.getByText('evt-2')).toBeInTheDocument();
    expect(screen.queryByText('evt-1')).toBeNull();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('evt-1')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull());
    const logReads = requests().filter((r: Request) => r.url.includes('/attempts'));
    expect(new URL(logReads[1].url).searchParams.get('cursor')).toBe('2');
    expect(screen.getAllByTestId('attempt-row').map((row) => row.textContent)).toEqual([
      expect.stringContaining('evt-3'),
      expect.stringContaining('evt-2'),
      expect.stringContaining('evt-1'),
    ]);
  });

  it('sends the filters as query parameters and starts again from the first page', async () => {
    const { requests } = pagedLog();
    renderWithProviders(<DeliveryLog endpointId={5} />);
    await screen.findByText('evt-3');
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Outcome'), 'failed');
    await waitFor(() => expect(screen.queryByText('evt-3')).toBeNull());
    expect(screen.getByText('evt-2')).toBeInTheDocument();
    expect(screen.getByText('HTTP 500')).toBeInTheDocument();
    const last = new URL(
      requests()
        .filter((r: Request) => r.url.includes('/attempts'))
        .at(-1)!.url,
    );
    expect(last.searchParams.get('outcome')).toBe('failed');
    expect(last.searchParams.has('cursor')).toBe(false);

    await user.selectOptions(screen.getByLabelText('Event type'), 'ping');
    await waitFor(() => {
      const url = new URL(
        requests()
          .filter((r: Request) => r.url.includes('/attempts'))
          .at(-1)!.url,
      );
      expect(url.searchParams.get('event_type')).toBe('ping');
    });
  });

  it('says when nothing matches, in words', async () => {
    fakeDashboard({
      'GET /event-types': EVENT_TYPES,
      'GET /endpoints/5/attempts': { items: [], next_cursor: null },
    });
    renderWithProviders(<DeliveryLog endpointId={5} />);
    expect(await screen.findByText('No delivery attempts yet')).toBeInTheDocument();
  });
});
