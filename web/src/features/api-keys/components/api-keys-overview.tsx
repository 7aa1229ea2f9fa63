import { Badge, Button, Card, Checkbox, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconKey, IconPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { type DataColumn } from '../../../components/ui/data-table';
import { ErrorText } from '../../../components/ui/error-text';
import { PageHeader } from '../../../components/ui/page-states';
import { SecretValue } from '../../../components/ui/secret-value';
import { Timestamp } from '../../../components/ui/timestamp';
import { PagedTable } from '../../../components/ui/paged-table';
import { useCanChange } from '../../../lib/roles';
import {
  useApiKeys,
  useCampaignOptions,
  useCreateApiKey,
  useRevokeApiKey,
  type ApiKey,
  type ApiKeyInput,
} from '../api/queries';

/** What the create form sends: no empty name, no campaign list when none is picked (all of them). */
export function toApiKeyInput(name: string, campaignIds: string[]): ApiKeyInput {
  const trimmed = name.trim();
  return {
    name: trimmed === '' ? null : trimmed,
    campaign_ids: campaignIds.length === 0 ? null : campaignIds.map(Number),
  };
}

function CreateKey({ onClose }: { onClose: () => void }) {
  const create = useCreateApiKey();
  const campaigns = useCampaignOptions();
  const [name, setName] = useState('');
  const [campaignIds, setCampaignIds] = useState<string[]>([]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(toApiKeyInput(name, campaignIds));
  }

  if (create.data) {
    return (
      <SecretValue
        value={create.data.api_key}
        title={`API key ${create.data.name ?? ''}`.trim()}
        once
        onDone={onClose}
      >
        <Text size="sm">
          Your integration exchanges it for bearer tokens at{' '}
          <code>POST /api/v1/auth/api-key/token</code>.
        </Text>
      </SecretValue>
    );
  }
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="new-key-title">
      <form onSubmit={submit}>
        <Stack gap="md" maw={560}>
          <Title order={2} size="h4" id="new-key-title">
            New API key
          </Title>
          {create.isError && <ErrorText error={create.error} title="The key was not created" />}
          <TextInput
            label="Name"
            description="What uses it, e.g. crm-sync."
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            data-autofocus
          />
          <Checkbox.Group
            label="Campaigns"
            description="Leave all unticked for every campaign of the account."
            value={campaignIds}
            onChange={setCampaignIds}
          >
            <Stack gap={6} mt="xs">
              {campaigns.isPending && (
                <Text size="sm" c="dimmed">
                  Loading the campaigns…
                </Text>
              )}
              {campaigns.isError && <ErrorText error={campaigns.error} />}
              {campaigns.data?.map((campaign) => (
                <Checkbox key={campaign.id} value={String(campaign.id)} label={campaign.name} />
              ))}
            </Stack>
          </Checkbox.Group>
          <Group gap="sm">
            <Button type="submit" loading={create.isPending}>
              Create API key
            </Button>
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function RevokeKey({ apiKey }: { apiKey: ApiKey }) {
  const revoke = useRevokeApiKey();
  const label = apiKey.name ?? apiKey.key_prefix;
  return (
    <ConfirmButton
      label="Revoke"
      title={`Revoke ${label}?`}
      message="Its bearer tokens stop working within 10 seconds and it cannot be used again. This cannot be undone."
      confirmLabel="Revoke the key"
      buttonProps={{ size: 'xs', 'aria-label': `Revoke ${label}` }}
      pending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutateAsync(apiKey.id)}
    />
  );
}

function campaignNames(ids: number[] | null, names: Map<number, string>): string {
  if (ids === null) return 'All campaigns';
  return ids.map((id) => names.get(id) ?? `#${id}`).join(', ');
}

function KeyState({ apiKey }: { apiKey: ApiKey }) {
  return apiKey.revoked_at ? (
    <Stack gap={2}>
      <Badge color="red" variant="light">
        Revoked
      </Badge>
      <Text size="xs" c="dimmed">
        <Timestamp value={apiKey.revoked_at} />
      </Text>
    </Stack>
  ) : (
    <Badge color="green" variant="light">
      Active
    </Badge>
  );
}

/** The keys' columns; with `canChange`, the last revokes. */
function keyColumns(names: Map<number, string>, canChange: boolean): Array<DataColumn<ApiKey>> {
  const columns: Array<DataColumn<ApiKey>> = [
    {
      key: 'name',
      header: 'Name',
      rowHeader: true,
      cell: (key) =>
        key.name ?? (
          <Text span inherit c="dimmed">
            unnamed
          </Text>
        ),
    },
    { key: 'prefix', header: 'Prefix', cell: (key) => <code>{key.key_prefix}</code> },
    {
      key: 'campaigns',
      header: 'Campaigns',
      wide: true,
      cell: (key) => campaignNames(key.campaign_ids, names),
    },
    { key: 'created', header: 'Created', cell: (key) => <Timestamp value={key.created_at} /> },
    {
      key: 'last_used',
      header: 'Last used',
      cell: (key) => <Timestamp value={key.last_used_at} fallback="never" />,
    },
    { key: 'state', header: 'State', cell: (key) => <KeyState apiKey={key} /> },
  ];
  if (!canChange) return columns;
  return [
    ...columns,
    {
      key: 'actions',
      header: 'Actions',
      hideHeader: true,
      cell: (key) => (key.revoked_at ? null : <RevokeKey apiKey={key} />),
    },
  ];
}

/** The account's API keys: list, create (the key shown once), revoke. */
export function ApiKeysOverview() {
  const canChange = useCanChange();
  const keys = useApiKeys();
  const campaigns = useCampaignOptions();
  const [creating, setCreating] = useState(false);
  const names = new Map((campaigns.data ?? []).map((c) => [c.id, c.name]));

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys your integrations exchange for bearer tokens: when each was created and last used, and which are revoked."
        actions={
          canChange && !creating ? (
            <Button
              leftSection={<IconPlus size={16} aria-hidden />}
              onClick={() => setCreating(true)}
            >
              New API key
            </Button>
          ) : null
        }
      />
      <Stack gap="lg">
        {canChange && creating && <CreateKey onClose={() => setCreating(false)} />}
        <PagedTable
          query={keys}
          loading="Loading the API keys…"
          empty={{
            title: 'No API keys yet',
            description: 'Create one for each integration that uploads leads.',
            icon: <IconKey size={28} aria-hidden />,
          }}
          columns={keyColumns(names, canChange)}
          rows={keys.data ?? []}
          rowKey={(key) => key.id}
          label="API keys"
          minWidth={760}
          testId="api-keys"
          rowTestId="api-key-row"
        />
      </Stack>
    </>
  );
}
