import { Radio, Stack } from '@mantine/core';
import type { EndpointOrdering } from '../../../api/types';

/** Each delivery order in words, for the form and the endpoint's page. */
export const ORDERING_LABELS: Record<EndpointOrdering, { label: string; description: string }> = {
  none: {
    label: 'As they come',
    description: 'Deliveries go out at once, in no guaranteed order. The fastest.',
  },
  per_lead: {
    label: 'In order per lead',
    description:
      "Each lead's deliveries go one after another, in the order the events happened; a failing one holds back only its own lead.",
  },
};

/**
 * The **Delivery order** choice of the endpoint form (docs/webhooks.md#per-lead-ordering):
 * as they come (the default) or in order per lead.
 */
export function OrderingFields({
  value,
  onChange,
}: {
  value: EndpointOrdering;
  onChange: (ordering: EndpointOrdering) => void;
}) {
  return (
    <Radio.Group
      label="Delivery order"
      description="Whether a lead's events must reach your receiver in the order they happened."
      value={value}
      onChange={(ordering) => onChange(ordering as EndpointOrdering)}
    >
      <Stack gap="xs" mt="xs">
        {(Object.keys(ORDERING_LABELS) as EndpointOrdering[]).map((ordering) => (
          <Radio
            key={ordering}
            value={ordering}
            label={ORDERING_LABELS[ordering].label}
            description={ORDERING_LABELS[ordering].description}
          />
        ))}
      </Stack>
    </Radio.Group>
  );
}
