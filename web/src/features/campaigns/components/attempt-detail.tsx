import { Badge, Button, Code, Drawer, Group, Stack, Table, Text, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { ErrorText } from '../../../components/ui/error-text';
import { PageError, PageLoader } from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { useCanChange } from '../../../lib/roles';
import { useAttempt, useRedeliver } from '../api/queries';
import type { Attempt, AttemptDetail } from '../api/types';
import { formatDuration } from '../lib/format';

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

/** A body as sent: indented when it is JSON, else as it is. */
export function prettyBody(body: string | null): string {
  if (body === null) return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** The outcome of an attempt as a badge. */
export function OutcomeBadge({ attempt }: { attempt: Pick<Attempt, 'success'> }) {
  return (
    <Badge variant="light" color={attempt.success ? 'teal' : 'red'}>
      {attempt.success ? 'Succeeded' : 'Failed'}
    </Badge>
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
      <Text size="sm">
        <Timestamp value={attempt.attempted_at} /> · <Code>{attempt.webhook_id}</Code>
      </Text>
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
        Request
      </Title>
      {request ? (
        <>
          <Text size="sm" style={{ wordBreak: 'break-all' }}>
            POST <Code>{request.url ?? '—'}</Code>
          </Text>
          {request.headers && (
            <Table.ScrollContainer minWidth={300}>
              <Table withTableBorder fz="xs" aria-label="Request headers">
                <Table.Tbody>
                  {headerPairs(request.headers).map(([name, value]) => (
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
        Response (start)
      </Title>
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

/** One attempt opened from the delivery log: the request as sent, the start of the response. */
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
