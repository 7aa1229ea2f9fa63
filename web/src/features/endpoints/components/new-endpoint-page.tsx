import { Anchor, Breadcrumbs, Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageHeader } from '../../../components/ui/page-states';
import { SecretValue } from '../../../components/ui/secret-value';
import { useCanChange } from '../../../lib/roles';
import { useCreateEndpoint } from '../api/queries';
import type { Campaign, CreatedEndpoint } from '../../../api/types';
import { EMPTY_ENDPOINT, EndpointForm } from './endpoint-form';
import { PublicKeyValue } from './public-key-panel';

/**
 * A new endpoint for a campaign; once created, its signing secret, shown this once, with
 * **Copy** (or, for an asymmetric endpoint, its public key).
 */
export function NewEndpointPage({ campaign }: { campaign: Campaign }) {
  const canChange = useCanChange();
  const campaignId = campaign.id;
  const create = useCreateEndpoint(campaignId);
  const navigate = useNavigate();
  const [created, setCreated] = useState<CreatedEndpoint | null>(null);
  const campaignName = campaign.name;

  return (
    <>
      <Breadcrumbs mb="xs" aria-label="Breadcrumb">
        <Anchor component={Link} to="/campaigns" size="sm">
          Campaigns
        </Anchor>
        <Anchor component={Link} to={`/campaigns/${campaignId}`} size="sm">
          {campaignName}
        </Anchor>
        <Text size="sm">New endpoint</Text>
      </Breadcrumbs>
      <PageHeader
        title={created ? 'Endpoint created' : 'Add endpoint'}
        description={
          created
            ? created.secret
              ? 'Your receiver verifies each delivery with this signing secret.'
              : 'Your receiver verifies each delivery with this public key.'
            : `A URL of yours that receives ${campaignName}’s events, signed (Standard Webhooks).`
        }
      />
      {!canChange ? (
        <Text c="dimmed">Only an admin of your account can add endpoints.</Text>
      ) : created ? (
        <Stack gap="md" maw={720}>
          {created.secret ? (
            <SecretValue value={created.secret} title="Signing secret" once />
          ) : (
            <PublicKeyValue
              label="Public key"
              value={created.endpoint.public_key ?? ''}
              description="Your receiver verifies each delivery's v1a ed25519 signature with it. It is not a secret."
            />
          )}
          <Group gap="sm">
            <Button component={Link} to={`/endpoints/${created.endpoint.id}`}>
              Go to the endpoint
            </Button>
            <Button component={Link} to={`/campaigns/${campaignId}`} variant="default">
              Back to {campaignName}
            </Button>
          </Group>
        </Stack>
      ) : (
        <EndpointForm
          initial={EMPTY_ENDPOINT}
          campaignId={campaignId}
          submitLabel="Create endpoint"
          pending={create.isPending}
          error={create.error}
          onSubmit={(input) => create.mutate(input, { onSuccess: (data) => setCreated(data) })}
          onCancel={() => void navigate(`/campaigns/${campaignId}`)}
        />
      )}
    </>
  );
}
