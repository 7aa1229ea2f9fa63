import { Badge, Button, Code, Drawer, Group, Stack, Table, Text, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { ErrorText } from '../../../components/ui/error-text';
import { PageError, PageLoader } from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { useCanChange } from '../../../lib/roles';
import { OutcomeBadge } from '../../../components/outcome-badge';
import { OneLineCode } from '../../../components/ui/one-line-code';
import { useAttempt, useRedeliver } from '../api/queries';
import type { AttemptDetail } from '../../../api/types';
import { formatDuration } from '../../../lib/format';

/** What the delivery log keeps instead of a secret custom header's value. */
const REDACTED = '[redacted]';

/** The request's headers as `[name, value]` pairs in the order sent, whatever shape they came in. */
export function headerPairs(headers: unknown): Array<[string, string]> {
  if (!headers) return [];
  if (Array.isArray(headers)) {
    return headers.map((h: unknown): [string, string] =>
      Array.isArray(h)
        ? [String(h[0]), String(h[1])]
        : [String((h as { name: unknown }).name), String((h as { value: unknown }).value)],
    );
  }
  if (typeof headers !== 'object') return [];
  return Object.entries(headers).map(([name, value]): [string, string] => [name, String(value)]);
}

/**
 * Headers as a two-column table (name, value) in the order given, long values wrapped: the
 * request's as sent, or the response's as kept.
 */
function HeaderTable({ label, headers }: { label: string; headers: unknown }) {
  return (
    <Table.ScrollContainer minWidth={300}>
      <Table withTableBorder fz="xs" aria-label={label}>
        <Table.Tbody>
          {headerPairs(headers).map(([name, value]) => (
            <Table.Tr key={name + value}>
              <Table.Th scope="row" style={{ whiteSpace: 'nowrap' }}>
                {name}
              </Table.Th>
              <Table.Td style={{ wordBreak: 'break-all' }} ff="monospace">
                {value}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A body as sent: indented when it is JSON, else as it is. */
export function prettyBody(body: string | null): string {
  if (body === null) return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

const DELIVERY_STATUS: Record<
  NonNullable<AttemptDetail['delivery']>['status'],
  { label: string; color: string; says: string }
> = {
  pending: { label: 'Pending', color: 'blue', says: 'It will be attempted again.' },
  succeeded: { label: 'Delivered', color: 'teal', says: 'Delivered: nothing more is sent.' },
  failed: {
    label: 'Failed',
    color: 'red',
    says: 'Failed for good: its retry schedule ran out. Redeliver sends it once more.',
  },
  dropped: {
    label: 'Dropped',
    color: 'gray',
    says: 'Dropped: the endpoint was disabled or deleted before its next attempt.',
  },
  skipped: {
    label: 'Skipped',
    color: 'gray',
    says: 'Skipped: the endpoint was disabled when the event was recorded.',
  },
};

/**
 * Where the attempt's delivery stands now: its status, how many delivery attempts it has had,
 * and when the next retry is due while it is pending. A ping or test event belongs to no
 * delivery and is never retried.
 */
export function DeliveryState({ delivery }: { delivery: AttemptDetail['delivery'] }) {
  if (delivery === null) {
    return (
      <Text size="sm" data-testid="delivery-state">
        A ping or test event: it belongs to no delivery and is never retried.
      </Text>
    );
  }
  const status = DELIVERY_STATUS[delivery.status];
  return (
    <Stack gap={4} data-testid="delivery-state">
      <Group gap="xs">
        <Badge variant="light" color={status.color}>
          {status.label}
        </Badge>
        <Text size="sm">
          {delivery.attempt_count} {delivery.attempt_count === 1 ? 'attempt' : 'attempts'} so far
        </Text>
      </Group>
      <Text size="sm">
        {delivery.status === 'pending' && delivery.next_attempt_at ? (
          <>
            Next retry <Timestamp value={delivery.next_attempt_at} />.
          </>
        ) : (
          status.says
        )}
      </Text>
    </Stack>
  );
}

function Detail({ attempt, endpointId }: { attempt: AttemptDetail; endpointId: number }) {
  const canChange = useCanChange();
  const redeliver = useRedeliver(endpointId);
  const request = attempt.request;
  return (
    <Stack gap="md">
      <Group gap="xs">
        <OutcomeBadge attempt={attempt} />
        <Badge variant="outline" color="gray">
          {attempt.event_type ?? 'ping'}
        </Badge>
        <Text size="sm">
          HTTP {attempt.status_code ?? '—'} in {formatDuration(attempt.duration_ms)}
        </Text>
      </Group>
      <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
        <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
          <Timestamp value={attempt.attempted_at} /> ·
        </Text>
        <OneLineCode value={attempt.webhook_id} />
      </Group>
      {attempt.error && (
        <Text size="sm" c="red" data-testid="attempt-error">
          {attempt.error}
        </Text>
      )}
      {canChange && attempt.delivery_id !== null && (
        <Stack gap="xs">
          <Group>
            <Button
              leftSection={<IconRefresh size={16} aria-hidden />}
              loading={redeliver.isPending}
              onClick={() => redeliver.mutate(attempt.delivery_id!)}
            >
              Redeliver
            </Button>
          </Group>
          {redeliver.isError && <ErrorText error={redeliver.error} />}
          {redeliver.isSuccess && (
            <Text size="sm" role="status">
              Redelivered: {redeliver.data.success ? 'succeeded' : 'failed'}, HTTP{' '}
              {redeliver.data.status_code ?? '—'} in {formatDuration(redeliver.data.duration_ms)}.
            </Text>
          )}
        </Stack>
      )}
      <Title order={3} size="h5">
        Delivery
      </Title>
      <DeliveryState delivery={attempt.delivery} />
      <Title order={3} size="h5">
        Request
      </Title>
      {request ? (
        <>
          <Text size="sm" style={{ wordBreak: 'break-all' }}>
            {request.method ?? 'POST'} <Code>{request.url ?? '—'}</Code>
          </Text>
          {request.transformation_version != null && (
            <Text size="sm" data-testid="transformation-version">
              Shaped by transformation version {request.transformation_version}
            </Text>
          )}
          {request.headers && <HeaderTable label="Request headers" headers={request.headers} />}
          {headerPairs(request.headers).some(([, value]) => value === REDACTED) && (
            <Text size="xs" c="dimmed" data-testid="redacted-note">
              {REDACTED} stands for the value of a secret custom header: it was sent, but is never
              kept.
            </Text>
          )}
          <Code
            block
            fz="xs"
            data-testid="request-body"
            style={{ maxHeight: 320, overflow: 'auto' }}
          >
            {prettyBody(request.body) || '(no body recorded)'}
          </Code>
        </>
      ) : (
        <Text size="sm" c="dimmed">
          Not recorded for this attempt (it predates the dashboard).
        </Text>
      )}
      <Title order={3} size="h5">
        Response
      </Title>
      <Text size="sm">Status {attempt.status_code ?? '— (no answer)'}</Text>
      {attempt.response_headers ? (
        <HeaderTable label="Response headers" headers={attempt.response_headers} />
      ) : (
        <Text size="sm" c="dimmed" data-testid="response-headers">
          {attempt.status_code === null
            ? 'No response came, so there are no response headers.'
            : 'No response headers were recorded for this attempt.'}
        </Text>
      )}
      <Code
        block
        fz="xs"
        data-testid="response-excerpt"
        style={{ maxHeight: 240, overflow: 'auto' }}
      >
        {attempt.response_excerpt ?? '(no response body)'}
      </Code>
    </Stack>
  );
}

/**
 * One delivery attempt opened from the delivery log: its outcome, where its delivery stands
 * (the next retry while pending), the request as sent and the start of the response.
 */
export function AttemptDrawer({
  attemptId,
  endpointId,
  onClose,
}: {
  attemptId: number | null;
  endpointId: number;
  onClose: () => void;
}) {
  const attempt = useAttempt(attemptId);
  return (
    <Drawer
      opened={attemptId !== null}
      onClose={onClose}
      position="right"
      // The scroll lock injects a <style> without the page's CSP nonce: refused.
      lockScroll={false}
      size="xl"
      title={`Attempt ${attemptId ?? ''}`}
      closeButtonProps={{ 'aria-label': 'Close the attempt' }}
    >
      {attemptId === null ? null : attempt.isPending ? (
        <PageLoader label="Loading the attempt…" />
      ) : attempt.isError ? (
        <PageError error={attempt.error} onRetry={() => void attempt.refetch()} />
      ) : (
        <Detail attempt={attempt.data} endpointId={endpointId} />
      )}
    </Drawer>
  );
}
