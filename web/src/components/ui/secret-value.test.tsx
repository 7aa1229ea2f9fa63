import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../testing/render';
import { SecretValue } from './secret-value';

describe('<SecretValue>', () => {
  it('shows the secret as text, says it is shown once, and copies it', async () => {
    const onDone = vi.fn();
    renderWithProviders(
      <SecretValue value="whsec_abc123" title="Signing secret" once onDone={onDone} />,
    );
    expect(await screen.findByText('whsec_abc123')).toBeInTheDocument();
    expect(screen.getByText(/shown only once/)).toBeInTheDocument();
    // user-event puts a clipboard of its own in place.
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe('whsec_abc123');
    expect(await screen.findByRole('button', { name: 'Copy' })).toHaveTextContent('Copied');
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(onDone).toHaveBeenCalled();
  });

  it('does not claim once for a revealed secret', async () => {
    renderWithProviders(<SecretValue value="whsec_abc123" title="Current signing secret" />);
    await screen.findByText('whsec_abc123');
    expect(screen.queryByText(/shown only once/)).toBeNull();
  });
});
