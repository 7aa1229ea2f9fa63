import { throttleSummary } from './throttle-fields';
import { ORDERING_LABELS } from './ordering-fields';
import { AutoRecoverSetting, RecoveryProbeNotice } from './recovery-probe-notice';
import { EndpointFilter } from './endpoint-filter';
import {
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Card,
  Code,
  Group,
  NativeSelect,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import {
  IconChartLine,
  IconCode,
  IconEdit,
  IconEye,
  IconPlugConnected,
  IconRefresh,
  IconSend,
  IconTrash,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { ErrorText } from '../../../components/ui/error-text';
import { PageHeader, PageReadFallback } from '../../../components/ui/page-states';
import { SecretValue } from '../../../components/ui/secret-value';
import { Timestamp } from '../../../components/ui/timestamp';
import { useCanChange } from '../../../lib/roles';
import { campaignKeys, useCampaigns, useEndpoint, useEventTypes } from '../../../api/campaigns';
import {
  useDeleteEndpoint,
  useRevealSecret,
  useRotateSecret,
  useSendTest,
  useUpdateEndpoint,
} from '../api/queries';
import type { Endpoint } from '../../../api/types';
import { endpointName, formatDuration } from '../../../lib/format';
import { ENDPOINT_NOT_FOUND } from '../../../lib/not-found';
import { CustomHeadersList } from './custom-headers-fields';
import { OutcomeBadge } from '../../../components/outcome-badge';
import {
  EndpointStateBadges,
  FailingBanner,
  HealthFigures,
} from '../../../components/endpoint-health';
import { PublicKeyPanel } from './public-key-panel';
import { SignatureSchemeSwitch } from './signature-scheme-fields';

function SendTest({ endpointId }: { endpointId: number }) {
  const eventTypes = useEventTypes();
  const send = useSendTest(endpointId);
  const [type, setType] = useState('');
  const result = send.data;
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="test-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="test-title">
          Test event
        </Title>
        <Text size="sm" c="dimmed">
          Sends now, signed like a delivery; it is a delivery attempt of no delivery: it shows in
          the delivery log and counts in the health figures, not in the ledger.
        </Text>
        <Group align="flex-end" gap="sm" wrap="wrap">
          <NativeSelect
            label="Event to send"
            value={type}
            onChange={(event) => setType(event.currentTarget.value)}
            data={[
              { value: '', label: 'ping' },
              ...(eventTypes.data ?? []).map((t) => ({
                value: t.type,
                label: `example of ${t.type}`,
              })),
            ]}
          />
          <Button
            leftSection={<IconSend size={16} aria-hidden />}
            loading={send.isPending}
            onClick={() => send.mutate(type || null)}
          >
            Send test event
          </Button>
        </Group>
        {send.isError && <ErrorText error={send.error} title="The test event was not sent" />}
        {result && (
          <Stack gap="xs" data-testid="test-result" role="status">
            <Group gap="xs">
              <OutcomeBadge attempt={result} />
              <Text size="sm">
                Status {result.status_code ?? '—'} · {formatDuration(result.duration_ms)}
              </Text>
            </Group>
            {result.error && (
              <Text size="sm" c="red">
                {result.error}
              </Text>
            )}
            <Text size="xs" c="dimmed">
              Start of the response body
            </Text>
            <Code block fz="xs" style={{ maxHeight: 200, overflow: 'auto' }}>
              {result.response_excerpt || '(empty)'}
            </Code>
          </Stack>
        )}
      </Stack>
    </Card>
  );
}

function SecretSection({ endpoint }: { endpoint: Endpoint }) {
  const reveal = useRevealSecret(endpoint.id);
  const rotate = useRotateSecret(endpoint.id);
  const [shown, setShown] = useState<'revealed' | 'rotated' | null>(null);

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="secret-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="secret-title">
          Signing secret
        </Title>
        <PreviousSecret
          until={rotate.data?.previous_secret_expires_at ?? endpoint.previous_secret_expires_at}
        />
        <Group gap="sm">
          <Button
            variant="light"
            leftSection={<IconEye size={16} aria-hidden />}
            loading={reveal.isPending}
            onClick={() => reveal.mutate(undefined, { onSuccess: () => setShown('revealed') })}
          >
            Reveal secret
          </Button>
          <ConfirmButton
            label="Rotate secret"
            title="Rotate the signing secret?"
            message="A new secret signs every delivery from now on. The current one stays valid for 24 hours, so update your receiver before then."
            confirmLabel="Rotate now"
            color="orange"
            leftSection={<IconRefresh size={16} aria-hidden />}
            pending={rotate.isPending}
            error={rotate.error}
            onConfirm={() => rotate.mutateAsync().then(() => setShown('rotated'))}
          />
        </Group>
        {reveal.isError && <ErrorText error={reveal.error} />}
        {shown === 'revealed' && reveal.data && (
          <SecretValue
            value={reveal.data.secret}
            title="Current signing secret"
            onDone={() => setShown(null)}
          >
            <Text size="xs" c="dimmed">
              Revealing it was recorded in the audit log.
            </Text>
          </SecretValue>
        )}
        {shown === 'rotated' && rotate.data?.secret && (
          <SecretValue
            value={rotate.data.secret}
            title="New signing secret"
            onDone={() => setShown(null)}
          >
            <Text size="xs" c="dimmed">
              Put it in your receiver now. An admin can show it again later with Reveal secret (each
              reveal is recorded in the audit log).
            </Text>
          </SecretValue>
        )}
      </Stack>
    </Card>
  );
}

/** Until when the secret before the last rotation still verifies, once; nothing without one. */
function PreviousSecret({ until }: { until: string | null }) {
  if (!until) return null;
  return (
    <Text size="sm" data-testid="previous-secret">
      The previous signing secret stays valid until <Timestamp value={until} />.
    </Text>
  );
}

/**
 * Why and since when the endpoint is disabled, in words (nothing while it is enabled): a 410
 * Gone answer disables it automatically; an admin or operator by hand.
 */
export function DisabledNotice({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.is_enabled || !endpoint.disabled_at) return null;
  const at = <Timestamp value={endpoint.disabled_at} />;
  let text: React.ReactNode;
  switch (endpoint.disabled_reason) {
    case 'gone':
      text = <>Disabled automatically on {at}: the endpoint answered 410 Gone</>;
      break;
    case 'auto':
      text = <>Disabled automatically on {at} after its deliveries kept failing</>;
      break;
    default:
      text = <>Disabled by an admin on {at}</>;
  }
  return (
    <Text size="sm" data-testid="disabled-notice">
      {text}. Enable it again to resume deliveries.
    </Text>
  );
}

/**
 * **Enable endpoint** for an admin, on a disabled endpoint's page: deliveries resume, and the
 * page then offers to replay what it missed (the deliveries feature's `ReplayOffer`).
 */
function EnableButton({ endpointId }: { endpointId: number }) {
  const update = useUpdateEndpoint(endpointId);
  return (
    <Stack gap="xs" align="flex-start">
      <Button
        variant="light"
        color="green"
        leftSection={<IconPlugConnected size={16} aria-hidden />}
        loading={update.isPending}
        onClick={() => update.mutate({ enabled: true })}
      >
        Enable endpoint
      </Button>
      {update.isError && <ErrorText error={update.error} title="The endpoint was not enabled" />}
    </Stack>
  );
}

/**
 * One endpoint: details, health, test events, secret and deletion. What the page shows of the
 * endpoint's deliveries comes from the route (app/routes/endpoint.tsx), which composes features:
 * `transformation` in the endpoint's card (which transformation is in force), `notice` under the
 * card (the offer to replay what it missed while disabled), and `deliveries` at the end of the
 * page (its delivery ledger, bulk recovery and delivery log). **Transformation** links to the
 * endpoint's transformation page. `embedded` (the embedded portal,
 * docs/dashboard.md#embedding-the-portal) leaves out the links to the pages the portal does not
 * have (delivery charts, transformation). `changes` false (a portal session without the
 * `endpoints` page, which the server refuses every change of an endpoint) shows the endpoint as
 * a viewer sees it.
 */
export function EndpointPage({
  endpointId,
  transformation,
  notice,
  deliveries,
  embedded = false,
  changes = true,
}: {
  endpointId: number;
  embedded?: boolean;
  changes?: boolean;
  transformation?: (endpoint: Endpoint) => ReactNode;
  notice: (endpoint: Endpoint) => ReactNode;
  deliveries: (endpoint: Endpoint) => ReactNode;
}) {
  const canChange = useCanChange() && changes;
  const endpoint = useEndpoint(endpointId);
  const campaigns = useCampaigns();
  const remove = useDeleteEndpoint(endpointId);
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  if (!endpoint.isSuccess) {
    return (
      <PageReadFallback
        query={endpoint}
        loading="Loading the endpoint…"
        notFound={ENDPOINT_NOT_FOUND}
      />
    );
  }
  const data = endpoint.data;
  const name = endpointName(data);
  const campaignName = campaigns.data?.find((c) => c.id === data.campaign_id)?.name;
  return (
    <Stack gap="lg">
      <div>
        <Breadcrumbs mb="xs" aria-label="Breadcrumb">
          <Anchor component={Link} to="/campaigns" size="sm">
            Campaigns
          </Anchor>
          <Anchor component={Link} to={`/campaigns/${data.campaign_id}`} size="sm">
            {campaignName ?? 'Campaign'}
          </Anchor>
          <Text size="sm">{name}</Text>
        </Breadcrumbs>
        <PageHeader
          title={name}
          description={`Webhook endpoint ${data.id} of ${campaignName ?? 'the campaign'}.`}
          actions={
            <>
              {!embedded && (
                <>
                  <Button
                    component={Link}
                    to={`/endpoints/${data.id}/charts`}
                    variant="default"
                    leftSection={<IconChartLine size={16} aria-hidden />}
                  >
                    Delivery charts
                  </Button>
                  <Button
                    component={Link}
                    to={`/endpoints/${data.id}/transformation`}
                    variant="default"
                    leftSection={<IconCode size={16} aria-hidden />}
                  >
                    Transformation
                  </Button>
                </>
              )}
              {canChange && (
                <>
                  <Button
                    component={Link}
                    to={`/endpoints/${data.id}/edit`}
                    variant="default"
                    leftSection={<IconEdit size={16} aria-hidden />}
                  >
                    Edit endpoint
                  </Button>
                  <ConfirmButton
                    label="Delete endpoint"
                    title="Delete this endpoint?"
                    message="It stops receiving events at once, and its deliveries and delivery log are deleted with it. This cannot be undone."
                    confirmLabel="Delete it"
                    leftSection={<IconTrash size={16} aria-hidden />}
                    pending={remove.isPending}
                    error={remove.error}
                    onConfirm={async () => {
                      await remove.mutateAsync();
                      await navigate(`/campaigns/${data.campaign_id}`);
                      // Stale now, never refetched while this page is still mounted (a 404).
                      await queryClient.invalidateQueries({
                        queryKey: campaignKeys.endpoint(data.id),
                        refetchType: 'none',
                      });
                    }}
                  />
                </>
              )}
            </>
          }
        />
      </div>
      <Card withBorder radius="md" padding="lg">
        <Stack gap="sm">
          <Text fw={600} style={{ wordBreak: 'break-all' }} data-testid="endpoint-url">
            {data.url}
          </Text>
          <Group gap="xs">
            <EndpointStateBadges endpoint={data} />
          </Group>
          <DisabledNotice endpoint={data} />
          <RecoveryProbeNotice endpoint={data} />
          {canChange && !data.is_enabled && <EnableButton endpointId={data.id} />}
          <FailingBanner endpoint={data} />
          <Group gap={6}>
            {data.subscribed_events.map((type) => (
              <Badge key={type} variant="outline" color="gray" tt="none">
                {type}
              </Badge>
            ))}
          </Group>
          <CustomHeadersList
            endpointId={data.id}
            headers={data.custom_headers ?? []}
            canReveal={canChange}
          />
          <Text size="xs" c="dimmed">
            Created <Timestamp value={data.created_at} />
          </Text>
          <Text size="sm" data-testid="endpoint-throttle">
            Throttle: {throttleSummary(data)}
          </Text>
          <Text size="sm" data-testid="endpoint-ordering">
            Delivery order: {ORDERING_LABELS[data.ordering].label.toLowerCase()}
          </Text>
          <AutoRecoverSetting endpoint={data} />
          <EndpointFilter filter={data.filter ?? null} />
          {transformation?.(data)}
          <HealthFigures health={data.health} />
        </Stack>
      </Card>
      {notice(data)}
      {canChange && <SendTest endpointId={data.id} />}
      <PublicKeyPanel endpoint={data} canChange={canChange} />
      {data.signature_scheme === 'asymmetric' ? null : canChange ? (
        <SecretSection endpoint={data} />
      ) : (
        <PreviousSecret until={data.previous_secret_expires_at} />
      )}
      {canChange && <SignatureSchemeSwitch endpoint={data} />}
      {deliveries(data)}
    </Stack>
  );
}
