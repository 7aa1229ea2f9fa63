import { Anchor, Breadcrumbs, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { PageHeader, PageReadFallback } from '../../../components/ui/page-states';
import { useCampaigns, useEndpoint } from '../../../api/campaigns';
import type { StatsSubject } from '../api/stats-queries';
import type { Campaign, Endpoint } from '../../../api/types';
import { endpointName } from '../../../lib/format';
import { DeliveryCharts } from './delivery-charts';
import { throttleLine } from './delivery-ledger';
import { useDeliveryLedger } from '../api/queries';
import { ENDPOINT_NOT_FOUND } from '../../../lib/not-found';

/** The breadcrumb trail of a charts page: Campaigns › campaign (› endpoint) › Charts. */
function Trail({ campaign, endpoint }: { campaign: Campaign | undefined; endpoint?: Endpoint }) {
  return (
    <Breadcrumbs mb="xs" aria-label="Breadcrumb">
      <Anchor component={Link} to="/campaigns" size="sm">
        Campaigns
      </Anchor>
      {campaign && (
        <Anchor component={Link} to={`/campaigns/${campaign.id}`} size="sm">
          {campaign.name}
        </Anchor>
      )}
      {endpoint && (
        <Anchor component={Link} to={`/endpoints/${endpoint.id}`} size="sm">
          {endpointName(endpoint)}
        </Anchor>
      )}
      <Text size="sm">Charts</Text>
    </Breadcrumbs>
  );
}

/**
 * What the charts cannot show of a throttled endpoint (docs/webhooks.md#throttling): the
 * deliveries waiting on its throttle are pending, not failed, and have no attempt yet, so no
 * chart counts them. Nothing while the endpoint has no throttle and nothing waits.
 */
export function ThrottleNote({ endpointId }: { endpointId: number }) {
  const ledger = useDeliveryLedger(endpointId, 1);
  const line = ledger.data ? throttleLine(ledger.data) : null;
  if (line === null) return null;
  return (
    <Text size="sm" data-testid="charts-throttle">
      {line}. Deliveries waiting on the throttle are pending, not failed: the charts count delivery
      attempts, and those have none until they are sent.
    </Text>
  );
}

/**
 * `/dashboard/endpoints/:endpointId/charts`: one endpoint's delivery charts, or the not-found
 * page for an endpoint the account does not have.
 */
export function EndpointChartsPage({ endpointId }: { endpointId: number }) {
  const endpoint = useEndpoint(endpointId);
  const campaigns = useCampaigns();
  if (!endpoint.isSuccess) {
    return (
      <PageReadFallback
        query={endpoint}
        loading="Loading the endpoint…"
        notFound={ENDPOINT_NOT_FOUND}
      />
    );
  }
  const subject: StatsSubject = { kind: 'endpoint', id: endpointId };
  const campaign = campaigns.data?.find((c) => c.id === endpoint.data.campaign_id);
  return (
    <Stack gap="lg">
      <div>
        <Trail campaign={campaign} endpoint={endpoint.data} />
        <PageHeader
          title={`${endpointName(endpoint.data)}: delivery charts`}
          description={endpoint.data.url}
        />
      </div>
      <ThrottleNote endpointId={endpointId} />
      <DeliveryCharts subject={subject} />
    </Stack>
  );
}

/** `/dashboard/campaigns/:campaignId/charts`: all of a campaign's endpoints together. */
export function CampaignChartsPage({ campaign }: { campaign: Campaign }) {
  const subject: StatsSubject = { kind: 'campaign', id: campaign.id };
  return (
    <Stack gap="lg">
      <div>
        <Trail campaign={campaign} />
        <PageHeader
          title="Campaign delivery charts"
          description={`Every webhook endpoint of ${campaign.name} together.`}
        />
      </div>
      <DeliveryCharts subject={subject} />
    </Stack>
  );
}
