import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../testing/render';
import { Timestamp } from './timestamp';

describe('<Timestamp>', () => {
  it("shows the time in the viewer's zone in a <time> element, and UTC on focus", async () => {
    renderWithProviders(
      <Timestamp value="2026-11-23T13:05:09Z" timeZone="Europe/Paris" locale="en-GB" />,
    );
    const time = await screen.findByText('23 Nov 2026, 14:05:09 CET');
    expect(time.tagName).toBe('TIME');
    expect(time).toHaveAttribute('datetime', '2026-11-23T13:05:09.000Z');
    await userEvent.setup().tab();
    expect(time).toHaveFocus();
    expect(await screen.findByText('2026-11-23 13:05:09 UTC')).toBeInTheDocument();
  });

  it('shows the fallback when there is no time', async () => {
    renderWithProviders(<Timestamp value={null} fallback="never" />);
    expect(await screen.findByText('never')).toBeInTheDocument();
  });
});
