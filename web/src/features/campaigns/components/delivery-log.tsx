import {
  Button,
  Code,
  Group,
  NativeSelect,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { IconListSearch } from '@tabler/icons-react';
import { useMediaQuery } from '@mantine/hooks';
import { useState } from 'react';
import { EmptyPanel, PageError, PageLoader } from '../../../components/ui/page-states';
import { LoadMore } from '../../../components/ui/load-more';
import { RefreshButton } from '../../../components/ui/refresh-button';
import { Timestamp } from '../../../components/ui/timestamp';
import { useDeliveryLog, useEventTypes } from '../api/queries';
import type { Attempt } from '../api/types';
import { hasFilters, NO_FILTERS, rangeProblem, type LogFilters } from '../lib/log-filters';
import { formatDuration } from '../lib/format';
import { AttemptDrawer, OutcomeBadge } from './attempt-detail';

function Filters({
  filters,
  onChange,
}: {
  filters: LogFilters;
  onChange: (filters: LogFilters) => void;
}) {
  const eventTypes = useEventTypes();
  const problem = rangeProblem(filters);
  return (
    <Stack gap="xs">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm">
        <NativeSelect
          label="Outcome"
          value={filters.outcome}
          onChange={(event) =>
            onChange({ ...filters, outcome: event.currentTarget.value as LogFilters['outcome'] })
          }
          data={[
            { value: '', label: 'Any outcome' },
            { value: 'succeeded', label: 'Succeeded' },
            { value: 'failed', label: 'Failed' },
          ]}
        />
        <NativeSelect
          label="Event type"
          value={filters.eventType}
          onChange={(event) => onChange({ ...filters, eventType: event.currentTarget.value })}
          data={[
            { value: '', label: 'Any event type' },
            { value: 'ping', label: 'ping' },
            ...(eventTypes.data ?? []).map((t) => ({ value: t.type, label: t.type })),
          ]}
        />
        <TextInput
          label="From"
          type="datetime-local"
          value={filters.from}
          onChange={(event) => onChange({ ...filters, from: event.currentTarget.value })}
        />
        <TextInput
          label="To"
          type="datetime-local"
          value={filters.to}
          onChange={(event) => onChange({ ...filters, to: event.currentTarget.value })}
          error={problem}
        />
      </SimpleGrid>
      {hasFilters(filters) && (
        <Group>
          <Button variant="subtle" size="xs" onClick={() => onChange(NO_FILTERS)}>
            Clear filters
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/** The log as stacked cards, for narrow screens. */
function AttemptCards({ attempts, onOpen }: { attempts: Attempt[]; onOpen: (id: number) => void }) {
  return (
    <Stack gap="sm" data-testid="delivery-log">
      {attempts.map((attempt) => (
        <Paper key={attempt.id} withBorder radius="md" p="sm" data-testid="attempt-row">
          <Stack gap={6}>
            <Group justify="space-between" gap="xs" wrap="nowrap">
              <Text size="sm">
                <Timestamp value={attempt.attempted_at} />
              </Text>
              <OutcomeBadge attempt={attempt} />
            </Group>
            <Text size="sm">
              <b>{attempt.event_type ?? 'ping'}</b> · HTTP {attempt.status_code ?? '—'} ·{' '}
              {formatDuration(attempt.duration_ms)}
            </Text>
            <Code fz="xs" style={{ wordBreak: 'break-all' }}>
              {attempt.webhook_id}
            </Code>
            {attempt.error && (
              <Text size="xs" c="red">
                {attempt.error}
              </Text>
            )}
            <Group justify="flex-end">
              <Button
                size="xs"
                variant="light"
                onClick={() => onOpen(attempt.id)}
                aria-label={`Open attempt ${attempt.id}`}
              >
                Open
              </Button>
            </Group>
          </Stack>
        </Paper>
      ))}
    </Stack>
  );
}

/**
 * An endpoint's delivery log (CONTRACT 10.4.5): attempts newest first, filtered by outcome,
 * event type and time range, paged by `next_cursor` (**Load more**); each opens to the request
 * as sent and the start of the response.
 */
export function DeliveryLog({ endpointId }: { endpointId: number }) {
  const [filters, setFilters] = useState<LogFilters>(NO_FILTERS);
  const [openAttempt, setOpenAttempt] = useState<number | null>(null);
  const log = useDeliveryLog(endpointId, filters);
  const attempts = log.data?.pages.flatMap((page) => page.items) ?? [];
  const narrow = useMediaQuery('(max-width: 48em)');

  return (
    <Stack gap="md" component="section" aria-labelledby="delivery-log-title">
      <Group justify="space-between" align="center">
        <Title order={2} size="h3" id="delivery-log-title">
          Delivery log
        </Title>
        <RefreshButton query={log} variant="subtle" size="xs" />
      </Group>
      <Text size="sm" c="dimmed" maw={640} mt={-8}>
        Every delivery attempt, newest first: first tries and retries, redeliveries, pings and test
        events.
      </Text>
      <Filters filters={filters} onChange={setFilters} />
      {log.isPending ? (
        <PageLoader label="Loading the delivery log…" />
      ) : log.isError ? (
        <PageError
          title="The delivery log could not be loaded"
          error={log.error}
          onRetry={() => void log.refetch()}
        />
      ) : attempts.length === 0 ? (
        <EmptyPanel
          title={
            !hasFilters(filters)
              ? 'No delivery attempts yet'
              : 'No delivery attempt matches these filters'
          }
          description={
            !hasFilters(filters)
              ? 'Deliveries, redeliveries and test events appear here once they have a result.'
              : 'Change or clear the filters to see more.'
          }
          icon={<IconListSearch size={28} aria-hidden />}
        />
      ) : narrow ? (
        <AttemptCards attempts={attempts} onOpen={setOpenAttempt} />
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={900}>
            <Table verticalSpacing="xs" highlightOnHover fz="sm" data-testid="delivery-log">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Time</Table.Th>
                  <Table.Th>Event type</Table.Th>
                  <Table.Th>webhook-id</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Duration</Table.Th>
                  <Table.Th>Outcome</Table.Th>
                  <Table.Th>Error</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Details</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {attempts.map((attempt) => (
                  <Table.Tr key={attempt.id} data-testid="attempt-row">
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>
                      <Timestamp value={attempt.attempted_at} />
                    </Table.Td>
                    <Table.Td>{attempt.event_type ?? 'ping'}</Table.Td>
                    <Table.Td>
                      <Code fz="xs">{attempt.webhook_id}</Code>
                    </Table.Td>
                    <Table.Td>{attempt.status_code ?? '—'}</Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>
                      {formatDuration(attempt.duration_ms)}
                    </Table.Td>
                    <Table.Td>
                      <Text
                        span
                        size="sm"
                        fw={600}
                        c={attempt.success ? 'teal.8' : 'red.8'}
                        style={{ whiteSpace: 'nowrap' }}
                      >
                        {attempt.success ? 'Succeeded' : 'Failed'}
                      </Text>
                    </Table.Td>
                    <Table.Td maw={220}>
                      <Text size="xs" c={attempt.error ? 'red' : 'dimmed'} lineClamp={2}>
                        {attempt.error ?? '—'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Button
                        size="xs"
                        variant="light"
                        onClick={() => setOpenAttempt(attempt.id)}
                        aria-label={`Open attempt ${attempt.id}`}
                      >
                        Open
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      <LoadMore pages={log} />
      <AttemptDrawer
        attemptId={openAttempt}
        endpointId={endpointId}
        onClose={() => setOpenAttempt(null)}
      />
    </Stack>
  );
}
