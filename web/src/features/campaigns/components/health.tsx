import { Badge, SimpleGrid } from '@mantine/core';
import { Figure } from '../../../components/ui/figure';
import { Timestamp } from '../../../components/ui/timestamp';
import type { Endpoint, EndpointHealth } from '../api/types';
import { formatDuration, formatRate } from '../lib/format';

/** Enabled or disabled, and how its last delivery went. */
export function EndpointStateBadges({ endpoint }: { endpoint: Endpoint }) {
  const last = endpoint.health?.last_delivery_is_successful ?? endpoint.last_delivery_is_successful;
  return (
    <>
      <Badge variant="light" color={endpoint.is_enabled ? 'green' : 'gray'}>
        {endpoint.is_enabled ? 'Enabled' : 'Disabled'}
      </Badge>
      {last !== null && last !== undefined && (
        <Badge variant="outline" color={last ? 'teal' : 'red'}>
          {last ? 'Last delivery succeeded' : 'Last delivery failed'}
        </Badge>
      )}
    </>
  );
}

/** The delivery health figures (spec 2.8): total, success rate, last delivery, average duration. */
export function HealthFigures({ health }: { health: EndpointHealth }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md" data-testid="health">
      <Figure label="Deliveries">{health.total_deliveries}</Figure>
      <Figure label="Success rate">{formatRate(health.success_rate)}</Figure>
      <Figure label="Last delivery">
        <Timestamp value={health.last_delivery_at} fallback="never" />
      </Figure>
      <Figure label="Average duration">{formatDuration(health.avg_duration_ms)}</Figure>
    </SimpleGrid>
  );
}
