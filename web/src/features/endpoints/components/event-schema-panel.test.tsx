import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { EventSchemaPanel } from './event-schema-panel';

describe('the event schema panel', () => {
  it('shows the description, and the JSON Schema behind a named toggle that says whether it is open', async () => {
    renderWithProviders(<EventSchemaPanel eventType={EVENT_TYPES[0]} />);
    const user = userEvent.setup();
    expect(screen.getByText('A lead was created by an upload.')).toBeInTheDocument();
    const show = screen.getByRole('button', { name: 'Show JSON Schema of lead.created' });
    expect(show).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByText(/draft\/2020-12/)).not.toBeInTheDocument();

    await user.click(show);
    const hide = screen.getByRole('button', { name: 'Hide JSON Schema of lead.created' });
    expect(hide).toHaveAttribute('aria-expanded', 'true');
    const schema = screen.getByLabelText('JSON Schema of lead.created');
    expect(hide).toHaveAttribute('aria-controls', schema.id);
    expect(schema).toHaveTextContent('"title": "LeadCreatedEvent"');
    expect(schema).toHaveTextContent('"$schema": "https://json-schema.org/draft/2020-12/schema"');

    await user.click(hide);
    expect(screen.queryByLabelText('JSON Schema of lead.created')).not.toBeInTheDocument();
  });
});
