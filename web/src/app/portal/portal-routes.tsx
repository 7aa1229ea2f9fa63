import { Anchor, Group, Image, Stack, Text } from '@mantine/core';
import { NavLink, Outlet, type RouteObject } from 'react-router';
import { DeliveryLog } from '../../features/deliveries/components/delivery-log';
import { CampaignPage } from '../../features/campaigns/components/campaign-page';
import { EndpointPage } from '../../features/endpoints/components/endpoint-page';
import { CampaignsOverview } from '../../features/campaigns/components/campaigns-overview';
import { CAMPAIGN_NOT_FOUND, CampaignGate } from '../routes/campaign-gate';
import { useIdParam } from '../routes/id-param';
import { NotFoundRoute } from '../routes/not-found';
import { NewEndpointRoute } from '../routes/new-endpoint';
import { EditEndpointRoute } from '../routes/edit-endpoint';

/** What the portal shows, from its session (docs/dashboard.md#embedding-the-portal). */
export interface PortalView {
  pages: string[];
  logoUrl: string | null;
}

/** The portal's frame: the host's logo and the campaigns link, no navigation chrome. */
function PortalLayout({ view }: { view: PortalView }) {
  return (
    <Stack p="md" gap="md" maw={1200} mx="auto">
      <Group justify="space-between" wrap="nowrap">
        <Group gap="sm" wrap="nowrap">
          {view.logoUrl ? <Image src={view.logoUrl} alt="" h={28} w="auto" fit="contain" /> : null}
          <Anchor component={NavLink} to="/campaigns" fw={600}>
            Webhooks
          </Anchor>
        </Group>
        <Text size="xs" c="dimmed">
          Embedded portal
        </Text>
      </Group>
      <Outlet />
    </Stack>
  );
}

/** A campaign in the portal: its endpoints only (**Add endpoint** with the `endpoints` page). */
function PortalCampaignRoute({ changes }: { changes: boolean }) {
  const campaignId = useIdParam('campaignId');
  if (campaignId === null) return <NotFoundRoute text={CAMPAIGN_NOT_FOUND} />;
  return (
    <CampaignGate key={campaignId} campaignId={campaignId}>
      {(campaign) => <CampaignPage campaign={campaign} embedded changes={changes} />}
    </CampaignGate>
  );
}

/**
 * An endpoint in the portal: its page (its changes with the `endpoints` page) and, with the
 * `deliveries` page, its delivery log.
 */
function PortalEndpointRoute({ deliveries, changes }: { deliveries: boolean; changes: boolean }) {
  const endpointId = useIdParam('endpointId');
  if (endpointId === null) return <NotFoundRoute />;
  return (
    <EndpointPage
      key={endpointId}
      endpointId={endpointId}
      embedded
      changes={changes}
      transformation={() => null}
      notice={() => null}
      deliveries={(endpoint) => (deliveries ? <DeliveryLog endpointId={endpoint.id} /> : null)}
    />
  );
}

/**
 * The portal's pages, in memory (the page's URL stays `/portal/<link id>`): the campaigns of
 * its session, a campaign's endpoints, adding and changing an endpoint, an endpoint with its
 * delivery log (with the `deliveries` page). Adding and changing endpoints are there only with
 * the `endpoints` page, which the server enforces too (docs/security.md#embedded-portal).
 */
export function portalRoutes(view: PortalView): RouteObject[] {
  const deliveries = view.pages.includes('deliveries');
  const changes = view.pages.includes('endpoints');
  return [
    {
      path: '/',
      element: <PortalLayout view={view} />,
      children: [
        { index: true, element: <CampaignsOverview /> },
        { path: 'campaigns', element: <CampaignsOverview /> },
        { path: 'campaigns/:campaignId', element: <PortalCampaignRoute changes={changes} /> },
        ...(changes
          ? [
              { path: 'campaigns/:campaignId/endpoints/new', element: <NewEndpointRoute /> },
              { path: 'endpoints/:endpointId/edit', element: <EditEndpointRoute /> },
            ]
          : []),
        {
          path: 'endpoints/:endpointId',
          element: <PortalEndpointRoute deliveries={deliveries} changes={changes} />,
        },
        { path: '*', element: <NotFoundRoute /> },
      ],
    },
  ];
}
