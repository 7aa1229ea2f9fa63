import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { fakeDashboard } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { toEndpointInput } from './endpoint-form';
import { FilterField } from './filter-field';

const PREVIEW = {
  items: [
    {
      source: 'example',
      type: 'lead.created',
      event_id: null,
      recorded_at: null,
      result: 'match',
      error: null,
    },
    {
      source: 'event',
      type: 'lead.created',
      event_id: '0b7f3a52-5c1e-4f0e-9d1b-6f2d8c1a7e11',
      recorded_at: '2026-11-25T10:00:00.000Z',
      result: 'no_match',
      error: null,
    },
    {
      source: 'event',
      type: 'lead.created',
      event_id: '4c2d9e8f-1a3b-4c5d-8e7f-9a0b1c2d3e4f',
      recorded_at: '2026-11-25T09:00:00.000Z',
      result: 'error',
      error: 'found no matching overload for null.startsWith(string)',
    },
  ],
};

function Field({ initial, events }: { initial: string; events: string[] }) {
  const [value, setValue] = useState(initial);
  return (
    <FilterField campaignId={2} value={value} events={events} onChange={setValue} error={null} />
  );
}

describe('the endpoint form’s filter', () => {
  it('sends a trimmed filter, null for a blank one, and nothing when the form has no filter', () => {
    const base = {
      url: 'https://x.test/h',
      description: '',
      events: ['lead.created'],
      enabled: true,
    };
    expect(toEndpointInput({ ...base, filter: ' data.source == "a" ' })).toMatchObject({
      filter: 'data.source == "a"',
    });
    expect(toEndpointInput({ ...base, filter: '  ' })).toMatchObject({ filter: null });
    expect(toEndpointInput(base)).not.toHaveProperty('filter');
  });

  it('tries the filter on the chosen types, sending its text, and lists Match / No match / Error per item', async () => {
    const { requests } = fakeDashboard({ 'POST /campaigns/2/filter-preview': PREVIEW });
    renderWithProviders(
      <Field initial='data.first_name.startsWith("A")' events={['lead.created']} />,
    );
    const user = userEvent.setup();
    expect(await screen.findByRole('textbox', { name: 'Filter' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Try it' }));
    const results = await screen.findByRole('region', { name: 'Filter results' });
    expect(within(results).getByText('1 of 3 would be sent')).toBeInTheDocument();
    const rows = within(results).getAllByRole('listitem');
    expect(rows.map((row) => row.getAttribute('data-result'))).toEqual([
      'match',
      'no_match',
      'error',
    ]);
    expect(within(rows[0]).getByText('Match')).toBeInTheDocument();
    expect(within(rows[1]).getByText('No match')).toBeInTheDocument();
    expect(within(rows[2]).getByText(/startsWith/)).toBeInTheDocument();
    const sent = requests().find((r) => r.url.endsWith('/filter-preview'))!;
    expect(await sent.json()).toEqual({
      filter: 'data.first_name.startsWith("A")',
      events: ['lead.created'],
    });
  });

  it('says the service’s refusal (line, column, problem) at the field', async () => {
    fakeDashboard({
      'POST /campaigns/2/filter-preview': json(422, {
        error: 'validation_failed',
        message:
          'filter has an error at line 1, column 6 (for lead.created events): No such key: stat',
      }),
    });
    renderWithProviders(<Field initial='data.stat == "CA"' events={['lead.created']} />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Try it' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'filter has an error at line 1, column 6 (for lead.created events): No such key: stat',
    );
    await waitFor(() =>
      expect(screen.getByRole('textbox', { name: 'Filter' })).toHaveAccessibleDescription(
        /line 1, column 6/,
      ),
    );
  });

  it('cannot be tried before an event type is chosen', async () => {
    fakeDashboard({});
    renderWithProviders(<Field initial="true" events={[]} />);
    expect(await screen.findByRole('button', { name: 'Try it' })).toBeDisabled();
    expect(screen.getByText('Choose an event type to try the filter.')).toBeInTheDocument();
  });
});
