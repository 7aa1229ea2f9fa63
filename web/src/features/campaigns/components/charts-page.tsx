import { Anchor, Breadcrumbs, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { PageHeader } from '../../../components/ui/page-states';
import { useCampaigns, useEndpoint } from '../api/queries';
import type { StatsSubject } from '../api/stats-queries';
import { DeliveryCharts } from './delivery-charts';

/** The breadcrumb trail of a charts page: Campaigns › campaign (› endpoint) › Charts. */
function Trail({
  campaignId,
  endpointId,
}: {
  campaignId: number | undefined;
  endpointId?: number;
}) {
  const campaigns = useCampaigns();
  const name =
    campaignId === undefined
      ? undefined
      : (campaigns.data?.find((c) => c.id === campaignId)?.name ?? `Campaign ${campaignId}`);
  return (
    <Breadcrumbs mb="xs" aria-label="Breadcrumb">
      <Anchor component={Link} to="/campaigns" size="sm">
        Campaigns
      </Anchor>
      {campaignId !== undefined && (
        <Anchor component={Link} to={`/campaigns/${campaignId}`} size="sm">
          {name}
        </Anchor>
      )}
      {endpointId !== undefined && (
        <Anchor component={Link} to={`/endpoints/${endpointId}`} size="sm">
          Endpoint {endpointId}
        </Anchor>
      )}
      <Text size="sm">Charts</Text>
    </Breadcrumbs>
  );
}

/** `/dashboard/endpoints/:endpointId/charts`: one endpoint's delivery charts. */
export function EndpointChartsPage({ endpointId }: { endpointId: number }) {
  const endpoint = useEndpoint(endpointId);
  const subject: StatsSubject = { kind: 'endpoint', id: endpointId };
  return (
    <Stack gap="lg">
      <div>
        <Trail campaignId={endpoint.data?.campaign_id} endpointId={endpointId} />
        <PageHeader
          title={`Endpoint ${endpointId}: delivery charts`}
          description={endpoint.data?.url}
        />
      </div>
      <DeliveryCharts subject={subject} />
    </Stack>
  );
}

/** `/dashboard/campaigns/:campaignId/charts`: all of a campaign's endpoints together. */
export function CampaignChartsPage({ campaignId }: { campaignId: number }) {
  const subject: StatsSubject = { kind: 'campaign', id: campaignId };
  return (
    <Stack gap="lg">
      <div>
        <Trail campaignId={campaignId} />
        <PageHeader
          title="Campaign delivery charts"
          description="Every webhook endpoint of the campaign together."
        />
      </div>
      <DeliveryCharts subject={subject} />
    </Stack>
  );
}
