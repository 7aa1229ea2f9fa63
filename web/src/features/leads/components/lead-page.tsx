import {
  Anchor,
  Badge,
  Breadcrumbs,
  Card,
  Code,
  Group,
  SimpleGrid,
  Stack,
  Text,
  Timeline,
  Title,
} from '@mantine/core';
import { IconSend } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { LoadMore } from '../../../components/ui/load-more';
import {
  EmptyPanel,
  PageError,
  PageHeader,
  PageLoader,
  PageReadFallback,
  type NotFoundText,
} from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { useLead, useLeadDeliveries } from '../api/queries';
import type { LeadDelivery, LeadDeliveryAttempt, LeadDetail } from '../../../api/types';
import { countOf, formatCount, formatDuration } from '../../../lib/format';
import { OneLineCode, OneLineText } from '../../../components/ui/one-line-code';
import { leadName } from './lead-search';

const OUTCOMES: Record<LeadDeliveryAttempt['outcome'], { label: string; color: string }> = {
  succeeded: { label: 'Succeeded', color: 'teal' },
  failed: { label: 'Failed', color: 'red' },
  in_flight: { label: 'In flight', color: 'blue' },
};

const STATUS_COLORS: Record<string, string> = {
  succeeded: 'teal',
  failed: 'red',
  pending: 'blue',
  dropped: 'gray',
  skipped: 'gray',
};

/**
 * One labelled value of a card: the label above, the value (or —) below, wrapped between words
 * (inside one only when it alone is too wide), or never when `nowrap` (a phone).
 */
function Field({
  label,
  children,
  nowrap = false,
}: {
  label: string;
  children: ReactNode;
  nowrap?: boolean;
}) {
  return (
    <Stack gap={2} style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase">
        {label}
      </Text>
      <Text
        size="sm"
        component="div"
        style={nowrap ? { whiteSpace: 'nowrap' } : { overflowWrap: 'break-word' }}
      >
        {children ?? '—'}
      </Text>
    </Stack>
  );
}

function LeadFields({ lead }: { lead: LeadDetail }) {
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="lead-fields">
      <Title order={2} size="h4" id="lead-fields" mb="sm">
        Lead
      </Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
        <Field label="Phone" nowrap>
          {lead.phone}
        </Field>
        <Field label="Email">{lead.email}</Field>
        <Field label="First name">{lead.first_name}</Field>
        <Field label="Last name">{lead.last_name}</Field>
        <Field label="Company">{lead.company}</Field>
        <Field label="Title">{lead.title}</Field>
        <Field label="Source">{lead.source}</Field>
        <Field label="Tags">{lead.tags.length > 0 ? lead.tags.join(', ') : null}</Field>
        <Field label="Added">
          <Timestamp value={lead.created_at} />
        </Field>
      </SimpleGrid>
    </Card>
  );
}

function ImportRecord({ lead }: { lead: LeadDetail }) {
  const record = lead.import;
  const key = record.api_key;
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="lead-import">
      <Title order={2} size="h4" id="lead-import" mb="xs">
        Import
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        The upload this lead came from, as its compliance record keeps it.
      </Text>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
        <Field label="Uploaded">
          <Timestamp value={record.created_at} />
        </Field>
        {key ? (
          <Field label="API key">
            {key.name ?? 'Unnamed key'} <Code fz="xs">{key.prefix}…</Code>
          </Field>
        ) : (
          <Field label="Imported by">
            {record.user ? (
              <>
                <OneLineText value={record.user.email} /> (spreadsheet)
              </>
            ) : null}
          </Field>
        )}
        <Field label="Client IP">{record.client_ip}</Field>
        <Field label="Source">{record.source}</Field>
        <Field label="Tags">{record.tags.length > 0 ? record.tags.join(', ') : null}</Field>
        <Field label="Disclaimer">
          Version {record.disclaimer_version}, acknowledged{' '}
          <Timestamp value={record.compliance_acknowledged_at} />
        </Field>
        <Field label="Leads in the upload">
          {countOf(record.received_count, 'row')} read: {countOf(record.new_count, 'new lead')},{' '}
          {countOf(record.duplicate_count, 'duplicate')} skipped,{' '}
          {formatCount(record.invalid_count)} rejected
        </Field>
        <Field label="Import">
          <Anchor component={Link} to={`/imports/${record.id}`} size="sm">
            Open the import and its rejected rows
          </Anchor>
        </Field>
      </SimpleGrid>
    </Card>
  );
}

/** An attempt's outcome as a coloured badge. */
export function AttemptOutcome({ outcome }: { outcome: LeadDeliveryAttempt['outcome'] }) {
  const { label, color } = OUTCOMES[outcome];
  return (
    <Badge variant="light" color={color}>
      {label}
    </Badge>
  );
}

/**
 * A held delivery's notice (docs/webhooks.md#per-lead-ordering): it waits behind an earlier
 * delivery of this lead to the same endpoint, linked (it is on this page, or on a later one of it).
 */
function HeldNotice({ heldBy }: { heldBy: number }) {
  return (
    <Text size="xs" data-testid="lead-delivery-held">
      Waiting behind{' '}
      <Anchor href={`#delivery-${heldBy}`} size="xs">
        delivery {heldBy}
      </Anchor>{' '}
      (in order per lead): it is sent once that one has succeeded or ended.
    </Text>
  );
}

function DeliveryItem({ delivery }: { delivery: LeadDelivery }) {
  return (
    <Stack gap={6} data-testid="lead-delivery" id={`delivery-${delivery.id}`}>
      <Group gap="xs" wrap="wrap">
        <Text fw={600} size="sm">
          {delivery.event_type}
        </Text>
        <Badge variant="outline" color={STATUS_COLORS[delivery.status] ?? 'gray'}>
          Delivery {delivery.held_by === null ? delivery.status : 'waiting'}
        </Badge>
        <Text size="xs" c="dimmed">
          #{delivery.id}
        </Text>
      </Group>
      <Text size="sm">
        to{' '}
        <Anchor
          component={Link}
          to={`/endpoints/${delivery.endpoint.id}`}
          style={{ wordBreak: 'break-all' }}
        >
          {delivery.endpoint.url}
        </Anchor>
      </Text>
      <Text size="xs" c="dimmed">
        Recorded <Timestamp value={delivery.created_at} />
      </Text>
      <Text size="xs" c="dimmed">
        webhook-id <OneLineCode value={delivery.webhook_id} />
      </Text>
      {delivery.held_by !== null && <HeldNotice heldBy={delivery.held_by} />}
      {delivery.attempts.length === 0 ? (
        <Text size="xs" c="dimmed">
          No attempt {delivery.status === 'skipped' ? '(the endpoint was disabled)' : 'yet'}.
        </Text>
      ) : (
        <Stack
          gap={4}
          component="ul"
          aria-label={`Attempts of delivery ${delivery.id}`}
          style={{ listStyle: 'none', paddingInlineStart: 0, margin: 0 }}
        >
          {delivery.attempts.map((attempt) => (
            <Group key={attempt.id} component="li" gap="xs" wrap="wrap" data-testid="lead-attempt">
              <AttemptOutcome outcome={attempt.outcome} />
              <Text size="xs">
                HTTP {attempt.status_code ?? '—'} · {formatDuration(attempt.duration_ms)} ·{' '}
                <Timestamp value={attempt.attempted_at} />
              </Text>
              {attempt.error && attempt.error !== `HTTP ${attempt.status_code}` && (
                <Text size="xs" c="red">
                  {attempt.error}
                </Text>
              )}
            </Group>
          ))}
        </Stack>
      )}
    </Stack>
  );
}

/** The webhook deliveries about the lead, newest first, as a timeline. */
function DeliveryTimeline({ leadId }: { leadId: number }) {
  const deliveries = useLeadDeliveries(leadId);
  const items = deliveries.data?.pages.flatMap((page) => page.items) ?? [];
  const retentionDays = deliveries.data?.pages[0]?.retention_days;
  return (
    <Stack gap="md" component="section" aria-labelledby="lead-deliveries">
      <Stack gap={4}>
        <Title order={2} size="h3" id="lead-deliveries">
          Webhook deliveries
        </Title>
        <Text size="sm" c="dimmed">
          Every delivery of <Code fz="xs">lead.created</Code> and of the later events that name this
          lead, newest first, with each attempt.
          {retentionDays !== undefined &&
            ` Events, deliveries and attempts are kept ${retentionDays} days: older ones are no longer listed.`}
        </Text>
      </Stack>
      {deliveries.isPending ? (
        <PageLoader label="Loading the deliveries…" />
      ) : deliveries.isError ? (
        <PageError
          title="The deliveries could not be loaded"
          error={deliveries.error}
          onRetry={() => void deliveries.refetch()}
        />
      ) : items.length === 0 ? (
        <EmptyPanel
          title="No delivery about this lead"
          description="No endpoint subscribed to its events when they were recorded, or they are older than the retention period."
          icon={<IconSend size={28} aria-hidden />}
        />
      ) : (
        <Timeline
          bulletSize={14}
          lineWidth={2}
          active={items.length - 1}
          aria-label="Deliveries about this lead"
        >
          {items.map((delivery) => (
            <Timeline.Item key={delivery.id} color={STATUS_COLORS[delivery.status] ?? 'gray'}>
              <DeliveryItem delivery={delivery} />
            </Timeline.Item>
          ))}
        </Timeline>
      )}
      <LoadMore pages={deliveries} />
    </Stack>
  );
}

/**
 * A lead's page (docs/dashboard.md#a-leads-page): its fields, the compliance record of the
 * upload it came from, and the webhook deliveries about it with each attempt's outcome.
 */
/** What the not-found page says for a lead id the account does not have. */
const LEAD_NOT_FOUND: NotFoundText = {
  title: 'Lead not found',
  description: 'No campaign of your account has a lead at this address. The link may be mistyped.',
};

export function LeadPage({ leadId }: { leadId: number }) {
  const lead = useLead(leadId);
  if (!lead.isSuccess) {
    return <PageReadFallback query={lead} loading="Loading the lead…" notFound={LEAD_NOT_FOUND} />;
  }
  const data = lead.data;
  const name = leadName(data);
  return (
    <>
      <Breadcrumbs mb="xs" aria-label="Breadcrumb">
        <Anchor component={Link} to="/campaigns" size="sm">
          Campaigns
        </Anchor>
        <Anchor component={Link} to={`/campaigns/${data.campaign_id}`} size="sm">
          {data.campaign_name}
        </Anchor>
        <Text size="sm">{name}</Text>
      </Breadcrumbs>
      <PageHeader title={name} description={`Lead ${data.id} of ${data.campaign_name}.`} />
      <Stack gap="lg">
        <LeadFields lead={data} />
        <ImportRecord lead={data} />
        <DeliveryTimeline leadId={leadId} />
      </Stack>
    </>
  );
}
