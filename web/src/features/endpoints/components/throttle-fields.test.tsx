import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import {
  NO_THROTTLE,
  ThrottleFields,
  throttleProblem,
  throttleSummary,
  throttleValuesOf,
  toThrottleInput,
  type ThrottleValues,
} from './throttle-fields';

function Harness({ onValue }: { onValue: (value: ThrottleValues) => void }) {
  const [value, setValue] = useState(NO_THROTTLE);
  return (
    <ThrottleFields
      value={value}
      onChange={(next) => {
        setValue(next);
        onValue(next);
      }}
    />
  );
}

describe('the throttle fields', () => {
  it('offers two labelled fields, blank for no limit, and refuses what the service would', async () => {
    const seen: ThrottleValues[] = [];
    renderWithProviders(<Harness onValue={(value) => seen.push(value)} />);
    const rate = screen.getByRole('textbox', { name: 'Max deliveries per second' });
    const inFlight = screen.getByRole('textbox', { name: 'Max in flight' });
    expect(rate).toHaveValue('');
    await userEvent.type(rate, '2.5');
    expect(rate).toBeInvalid();
    expect(
      screen.getByText(
        'Enter a whole number of deliveries per second from 1 to 1,000, or leave it blank for no limit',
      ),
    ).toBeVisible();
    await userEvent.clear(rate);
    await userEvent.type(rate, '5');
    expect(rate).toBeValid();
    await userEvent.type(inFlight, '101');
    expect(inFlight).toBeInvalid();
    expect(
      screen.getByText(
        'Enter a whole number of attempts in flight from 1 to 100, or leave it blank for no limit',
      ),
    ).toBeVisible();
    expect(seen.at(-1)).toEqual({ maxPerSecond: '5', maxInFlight: '101' });
  });

  it('sends blank as null (no limit) and numbers as numbers', () => {
    expect(toThrottleInput({ maxPerSecond: ' 5 ', maxInFlight: '' })).toEqual({
      max_deliveries_per_second: 5,
      max_in_flight: null,
    });
    expect(toThrottleInput(undefined)).toEqual({});
    expect(throttleProblem('maxInFlight', '0')).not.toBeNull();
    expect(throttleProblem('maxPerSecond', '1000')).toBeNull();
  });

  it('reads an endpoint into the fields and into words', () => {
    const endpoint = { max_deliveries_per_second: 5, max_in_flight: null };
    expect(throttleValuesOf(endpoint)).toEqual({ maxPerSecond: '5', maxInFlight: '' });
    expect(throttleSummary(endpoint)).toBe('5 deliveries/s');
    expect(throttleSummary({ max_deliveries_per_second: null, max_in_flight: 2 })).toBe(
      '2 in flight',
    );
    expect(throttleSummary({ max_deliveries_per_second: null, max_in_flight: null })).toBe(
      'Unlimited',
    );
  });
});
