import { Anchor, Breadcrumbs, Button, Card, Group, Stack, Text } from '@mantine/core';
import { IconChartLine, IconPlus, IconWebhook } from '@tabler/icons-react';
import { Link } from 'react-router';
import { EmptyPanel, PageError, PageHeader, PageLoader } from '../../../components/ui/page-states';
import { useCanChange } from '../../../lib/roles';
import { useCampaignEndpoints } from '../api/queries';
import type { Campaign } from '../../../api/types';
import { EndpointStateBadges, HealthFigures } from '../../../components/endpoint-health';

/**
 * One campaign of the account (the route shows the not-found page for any other): its webhook
 * endpoints with their state and delivery health.
 */
export function CampaignPage({
  campaign,
  embedded = false,
  changes = true,
}: {
  campaign: Campaign;
  /** In the embedded portal (docs/dashboard.md#embedding-the-portal): no delivery charts link. */
  embedded?: boolean;
  /** False for a portal session without the `endpoints` page: no **Add endpoint**. */
  changes?: boolean;
}) {
  const canChange = useCanChange() && changes;
  const campaignId = campaign.id;
  const endpoints = useCampaignEndpoints(campaignId);
  const title = campaign.name;
  const addEndpoint = canChange ? (
    <Button
      component={Link}
      to={`/campaigns/${campaignId}/endpoints/new`}
      leftSection={<IconPlus size={16} aria-hidden />}
    >
      Add endpoint
    </Button>
  ) : null;
  const actions = (
    <>
      {!embedded && (
        <Button
          component={Link}
          to={`/campaigns/${campaignId}/charts`}
          variant="default"
          leftSection={<IconChartLine size={16} aria-hidden />}
        >
          Delivery charts
        </Button>
      )}
      {addEndpoint}
    </>
  );

  return (
    <>
      <Breadcrumbs mb="xs" aria-label="Breadcrumb">
        <Anchor component={Link} to="/campaigns" size="sm">
          Campaigns
        </Anchor>
        <Text size="sm">{title}</Text>
      </Breadcrumbs>
      <PageHeader
        title={title}
        description={
          campaign.default_region
            ? `Region ${campaign.default_region}. Webhook endpoints and how their deliveries go.`
            : 'Webhook endpoints and how their deliveries go.'
        }
        actions={actions}
      />
      {endpoints.isPending ? (
        <PageLoader label="Loading the endpoints…" />
      ) : endpoints.isError ? (
        <PageError error={endpoints.error} onRetry={() => void endpoints.refetch()} />
      ) : endpoints.data.length === 0 ? (
        <EmptyPanel
          title="No webhook endpoints yet"
          description={
            canChange
              ? 'Add an endpoint to receive this campaign’s events, signed, at a URL of yours.'
              : 'An admin of your account can add one.'
          }
          icon={<IconWebhook size={28} aria-hidden />}
        >
          {addEndpoint}
        </EmptyPanel>
      ) : (
        <Stack gap="md">
          {endpoints.data.map((endpoint) => (
            <Card key={endpoint.id} withBorder radius="md" padding="lg" component="article">
              <Stack gap="sm">
                <Group justify="space-between" align="flex-start" gap="xs" wrap="wrap">
                  <Stack gap={2} style={{ minWidth: 0, flex: '1 1 14rem' }}>
                    <Anchor
                      component={Link}
                      to={`/endpoints/${endpoint.id}`}
                      fw={600}
                      style={{ wordBreak: 'break-all' }}
                    >
                      {endpoint.url}
                    </Anchor>
                    {endpoint.description && (
                      <Text size="sm" c="dimmed">
                        {endpoint.description}
                      </Text>
                    )}
                  </Stack>
                  <Group gap="xs">
                    <EndpointStateBadges endpoint={endpoint} />
                  </Group>
                </Group>
                <Text size="xs" c="dimmed">
                  {endpoint.subscribed_events.join(', ')}
                </Text>
                {endpoint.health && <HealthFigures health={endpoint.health} />}
              </Stack>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
