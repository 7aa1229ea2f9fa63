import { Anchor, Breadcrumbs, Text } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { PageHeader, PageReadFallback } from '../../../components/ui/page-states';
import { useCanChange } from '../../../lib/roles';
import { useCampaigns, useEndpoint } from '../../../api/campaigns';
import { useUpdateEndpoint } from '../api/queries';
import { endpointName } from '../../../lib/format';
import { throttleValuesOf } from './throttle-fields';
import { EndpointForm } from './endpoint-form';
import { headerRows } from './custom-headers-fields';
import { ENDPOINT_NOT_FOUND } from '../../../lib/not-found';

/**
 * Changes an endpoint's URL, description, events and whether it is enabled; its breadcrumb
 * goes Campaigns › the campaign › the endpoint › Edit, like the endpoint's page.
 */
export function EditEndpointPage({ endpointId }: { endpointId: number }) {
  const canChange = useCanChange();
  const endpoint = useEndpoint(endpointId);
  const campaigns = useCampaigns();
  const campaignId = endpoint.data?.campaign_id;
  const campaignName = campaigns.data?.find((c) => c.id === campaignId)?.name;
  const update = useUpdateEndpoint(endpointId);
  const navigate = useNavigate();
  const back = `/endpoints/${endpointId}`;

  return (
    <>
      <Breadcrumbs mb="xs" aria-label="Breadcrumb">
        <Anchor component={Link} to="/campaigns" size="sm">
          Campaigns
        </Anchor>
        {campaignId !== undefined && (
          <Anchor component={Link} to={`/campaigns/${campaignId}`} size="sm">
            {campaignName ?? 'Campaign'}
          </Anchor>
        )}
        <Anchor component={Link} to={back} size="sm">
          {endpoint.data ? endpointName(endpoint.data) : 'Endpoint'}
        </Anchor>
        <Text size="sm">Edit</Text>
      </Breadcrumbs>
      <PageHeader title="Edit endpoint" />
      {!canChange ? (
        <Text c="dimmed">Only an admin of your account can change endpoints.</Text>
      ) : !endpoint.isSuccess ? (
        <PageReadFallback
          query={endpoint}
          loading="Loading the endpoint…"
          notFound={ENDPOINT_NOT_FOUND}
        />
      ) : (
        <EndpointForm
          initial={{
            url: endpoint.data.url,
            description: endpoint.data.description ?? '',
            events: endpoint.data.subscribed_events,
            enabled: endpoint.data.is_enabled,
            headers: headerRows(endpoint.data.custom_headers),
            throttle: throttleValuesOf(endpoint.data),
            ordering: endpoint.data.ordering,
            autoRecover: endpoint.data.auto_recover,
            filter: endpoint.data.filter ?? '',
          }}
          campaignId={endpoint.data.campaign_id}
          submitLabel="Save changes"
          pending={update.isPending}
          error={update.error}
          onSubmit={(input) => update.mutate(input, { onSuccess: () => void navigate(back) })}
          onCancel={() => void navigate(back)}
        />
      )}
    </>
  );
}
