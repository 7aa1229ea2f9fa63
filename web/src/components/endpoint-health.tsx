import { Alert, Badge, SimpleGrid } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Figure } from './ui/figure';
import { Timestamp } from './ui/timestamp';
import type { Endpoint, EndpointHealth } from '../api/types';
import { formatDuration, formatRate } from '../lib/format';

/** Enabled or disabled, failing or not, and how its last delivery attempt went. */
export function EndpointStateBadges({ endpoint }: { endpoint: Endpoint }) {
  const last = endpoint.health?.last_delivery_is_successful ?? endpoint.last_delivery_is_successful;
  return (
    <>
      <Badge variant="light" color={endpoint.is_enabled ? 'green' : 'gray'}>
        {endpoint.is_enabled ? 'Enabled' : 'Disabled'}
      </Badge>
      {endpoint.failing_since && (
        <Badge variant="filled" color="red">
          Failing
        </Badge>
      )}
      {last !== null && last !== undefined && (
        <Badge variant="outline" color={last ? 'teal' : 'red'}>
          {last ? 'Last attempt succeeded' : 'Last attempt failed'}
        </Badge>
      )}
    </>
  );
}

/**
 * The health figures (docs/api.md#webhook-reads), which count delivery attempts (pings and test
 * events included), not deliveries: how many finished, the share that succeeded, when the last
 * one was made and how long one took on average. Deliveries are counted by the ledger.
 */
export function HealthFigures({ health }: { health: EndpointHealth }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md" data-testid="health">
      <Figure label="Delivery attempts">{health.total_deliveries.toLocaleString()}</Figure>
      <Figure label="Success rate">{formatRate(health.success_rate)}</Figure>
      <Figure label="Last attempt">
        <Timestamp value={health.last_delivery_at} fallback="never" />
      </Figure>
      <Figure label="Average attempt duration">{formatDuration(health.avg_duration_ms)}</Figure>
    </SimpleGrid>
  );
}

/** What each failing reason means, for the banner (docs/webhooks.md#failing-endpoints). */
const FAILING_REASON_TEXT: Record<NonNullable<Endpoint['failing_reason']>, string> = {
  failure_rate: 'more than half of its attempts in the last hour failed',
  no_success: 'every attempt of the last 24 hours failed',
};

/**
 * A banner while the endpoint is failing: why, since when, and when it will be disabled if
 * nothing succeeds first.
 */
export function FailingBanner({ endpoint }: { endpoint: Endpoint }) {
  if (!endpoint.failing_since || !endpoint.failing_reason) return null;
  return (
    <Alert
      color="red"
      variant="light"
      title="This endpoint is failing"
      icon={<IconAlertTriangle size={18} aria-hidden />}
      data-testid="failing-banner"
    >
      Since <Timestamp value={endpoint.failing_since} />,{' '}
      {FAILING_REASON_TEXT[endpoint.failing_reason]}.{' '}
      {endpoint.auto_disable_at && (
        <>
          Unless a delivery succeeds, it will be disabled automatically on{' '}
          <Timestamp value={endpoint.auto_disable_at} />.{' '}
        </>
      )}
      Check the receiver and its answers in the delivery log below.
    </Alert>
  );
}
