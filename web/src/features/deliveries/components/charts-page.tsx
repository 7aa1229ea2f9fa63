import { Anchor, Breadcrumbs, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { PageHeader, PageReadFallback } from '../../../components/ui/page-states';
import { useCampaigns, useEndpoint } from '../../../api/campaigns';
import type { StatsSubject } from '../api/stats-queries';
import type { Campaign, Endpoint } from '../../../api/types';
import { endpointName } from '../../../lib/format';
import { DeliveryCharts } from './delivery-charts';
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
