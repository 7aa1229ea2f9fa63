import { Fieldset, SimpleGrid, Text, TextInput } from '@mantine/core';
import type { Endpoint } from '../../../api/types';

/** The throttle's two fields as typed: blank means no limit. */
export interface ThrottleValues {
  maxPerSecond: string;
  maxInFlight: string;
}

/** An endpoint without a throttle. */
export const NO_THROTTLE: ThrottleValues = { maxPerSecond: '', maxInFlight: '' };

/** The service's bounds (docs/webhooks.md#throttling). */
const BOUNDS = {
  maxPerSecond: { min: 1, max: 1000, what: 'deliveries per second' },
  maxInFlight: { min: 1, max: 100, what: 'attempts in flight' },
} as const;

/** The two fields, in the form's order. */
const FIELDS: Array<{ field: keyof ThrottleValues; label: string; description: string }> = [
  {
    field: 'maxPerSecond',
    label: 'Max deliveries per second',
    description: '1 to 1,000, across every worker',
  },
  { field: 'maxInFlight', label: 'Max in flight', description: '1 to 100 attempts at once' },
];

/** The form's values of an endpoint as it is. */
export function throttleValuesOf(
  endpoint: Pick<Endpoint, 'max_deliveries_per_second' | 'max_in_flight'>,
): ThrottleValues {
  return {
    maxPerSecond: endpoint.max_deliveries_per_second?.toString() ?? '',
    maxInFlight: endpoint.max_in_flight?.toString() ?? '',
  };
}

/** What is wrong with one field as typed; null when blank (no limit) or a whole number in bounds. */
export function throttleProblem(field: keyof ThrottleValues, typed: string): string | null {
  const value = typed.trim();
  if (value === '') return null;
  const { min, max, what } = BOUNDS[field];
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    return `Enter a whole number of ${what} from ${min} to ${max.toLocaleString('en')}, or leave it blank for no limit`;
  }
  return null;
}

/** Whether either field has a problem (the form is not sent then). */
export function hasThrottleProblem(values: ThrottleValues | undefined): boolean {
  return (
    values !== undefined &&
    (throttleProblem('maxPerSecond', values.maxPerSecond) !== null ||
      throttleProblem('maxInFlight', values.maxInFlight) !== null)
  );
}

/** What the form sends of the throttle: null for a blank field; nothing without the fields. */
export function toThrottleInput(values: ThrottleValues | undefined): {
  max_deliveries_per_second?: number | null;
  max_in_flight?: number | null;
} {
  if (values === undefined) return {};
  const limit = (typed: string) => (typed.trim() === '' ? null : Number(typed.trim()));
  return {
    max_deliveries_per_second: limit(values.maxPerSecond),
    max_in_flight: limit(values.maxInFlight),
  };
}

/** The throttle in words: "5 deliveries/s, 2 in flight", or "Unlimited". */
export function throttleSummary(
  endpoint: Pick<Endpoint, 'max_deliveries_per_second' | 'max_in_flight'>,
): string {
  const parts = [
    endpoint.max_deliveries_per_second === null
      ? null
      : `${endpoint.max_deliveries_per_second} deliveries/s`,
    endpoint.max_in_flight === null ? null : `${endpoint.max_in_flight} in flight`,
  ].filter((part) => part !== null);
  return parts.length === 0 ? 'Unlimited' : parts.join(', ');
}

/**
 * The endpoint form's throttle (docs/webhooks.md#throttling): **Max deliveries per second** and
 * **Max in flight**, each blank for no limit, checked as typed. One column on a phone, two side
 * by side from the `sm` breakpoint.
 */
export function ThrottleFields({
  value,
  onChange,
}: {
  value: ThrottleValues;
  onChange: (value: ThrottleValues) => void;
}) {
  return (
    <Fieldset legend="Throttle" radius="md">
      <Text size="sm" c="dimmed" mb="sm">
        Optional. Deliveries beyond these limits wait (they stay pending) instead of being sent at
        once; other endpoints are not slowed. Leave blank for no limit.
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        {FIELDS.map(({ field, label, description }) => (
          <TextInput
            key={field}
            label={label}
            description={description}
            inputMode="numeric"
            placeholder="No limit"
            value={value[field]}
            onChange={(event) => onChange({ ...value, [field]: event.currentTarget.value })}
            error={throttleProblem(field, value[field])}
          />
        ))}
      </SimpleGrid>
    </Fieldset>
  );
}
