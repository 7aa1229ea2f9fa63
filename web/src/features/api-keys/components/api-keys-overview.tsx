import {
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconKey, IconPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { ErrorText } from '../../../components/ui/error-text';
import { EmptyPanel, PageError, PageHeader, PageLoader } from '../../../components/ui/page-states';
import { SecretValue } from '../../../components/ui/secret-value';
import { Timestamp } from '../../../components/ui/timestamp';
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
      message="Its bearer tokens stop working within 30 seconds and it cannot be used again. This cannot be undone."
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

/** The keys as stacked cards, for narrow screens. */
function KeyCards({
  keys,
  names,
  canChange,
}: {
  keys: ApiKey[];
  names: Map<number, string>;
  canChange: boolean;
}) {
  return (
    <Stack gap="sm" data-testid="api-keys">
      {keys.map((key) => (
        <Paper key={key.id} withBorder radius="md" p="sm" data-testid="api-key-row">
          <Stack gap={6}>
            <Group justify="space-between" gap="xs" align="flex-start">
              <Stack gap={0}>
                <Text fw={600}>{key.name ?? 'unnamed'}</Text>
                <Code fz="xs">{key.key_prefix}</Code>
              </Stack>
              <KeyState apiKey={key} />
            </Group>
            <Text size="sm">{campaignNames(key.campaign_ids, names)}</Text>
            <Text size="xs" c="dimmed">
              Created <Timestamp value={key.created_at} /> · last used{' '}
              <Timestamp value={key.last_used_at} fallback="never" />
            </Text>
            {canChange && !key.revoked_at && (
              <Group justify="flex-end">
                <RevokeKey apiKey={key} />
              </Group>
            )}
          </Stack>
        </Paper>
      ))}
    </Stack>
  );
}

/** The account's API keys (CONTRACT 10.4.7): list, create (the key shown once), revoke. */
export function ApiKeysOverview() {
  const canChange = useCanChange();
  const keys = useApiKeys();
  const campaigns = useCampaignOptions();
  const [creating, setCreating] = useState(false);
  const names = new Map((campaigns.data ?? []).map((c) => [c.id, c.name]));
  const narrow = useMediaQuery('(max-width: 48em)');

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
        {keys.isPending ? (
          <PageLoader label="Loading the API keys…" />
        ) : keys.isError ? (
          <PageError error={keys.error} onRetry={() => void keys.refetch()} />
        ) : keys.data.length === 0 ? (
          <EmptyPanel
            title="No API keys yet"
            description="Create one for each integration that uploads leads."
            icon={<IconKey size={28} aria-hidden />}
          />
        ) : narrow ? (
          <KeyCards keys={keys.data} names={names} canChange={canChange} />
        ) : (
          <Paper withBorder radius="md">
            <Table.ScrollContainer minWidth={760}>
              <Table verticalSpacing="sm" fz="sm" data-testid="api-keys">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Prefix</Table.Th>
                    <Table.Th>Campaigns</Table.Th>
                    <Table.Th>Created</Table.Th>
                    <Table.Th>Last used</Table.Th>
                    <Table.Th>State</Table.Th>
                    {canChange && <Table.Th>Actions</Table.Th>}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {keys.data.map((key) => (
                    <Table.Tr key={key.id} data-testid="api-key-row">
                      <Table.Td fw={500}>
                        {key.name ?? (
                          <Text span c="dimmed">
                            unnamed
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <code>{key.key_prefix}</code>
                      </Table.Td>
                      <Table.Td>{campaignNames(key.campaign_ids, names)}</Table.Td>
                      <Table.Td>
                        <Timestamp value={key.created_at} />
                      </Table.Td>
                      <Table.Td>
                        <Timestamp value={key.last_used_at} fallback="never" />
                      </Table.Td>
                      <Table.Td>
                        <KeyState apiKey={key} />
                      </Table.Td>
                      {canChange && (
                        <Table.Td>{!key.revoked_at && <RevokeKey apiKey={key} />}</Table.Td>
                      )}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Paper>
        )}
      </Stack>
    </>
  );
}
