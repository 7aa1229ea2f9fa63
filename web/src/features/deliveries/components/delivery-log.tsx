import {
  Button,
  Group,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconListSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { type DataColumn } from '../../../components/ui/data-table';
import { RefreshButton } from '../../../components/ui/refresh-button';
import { Timestamp } from '../../../components/ui/timestamp';
import { PagedTable } from '../../../components/ui/paged-table';
import { useEventTypes } from '../../../api/campaigns';
import { useDeliveryLog } from '../api/queries';
import type { Attempt } from '../../../api/types';
import { hasFilters, NO_FILTERS, rangeProblem, type LogFilters } from '../lib/log-filters';
import { formatDuration } from '../../../lib/format';
import { OutcomeBadge } from '../../../components/outcome-badge';
import { OneLineCode } from '../../../components/ui/one-line-code';
import { AttemptDrawer } from './attempt-detail';

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

/** The log's columns; the last opens the attempt with `onOpen`. */
function attemptColumns(onOpen: (id: number) => void): Array<DataColumn<Attempt>> {
  return [
    {
      key: 'time',
      header: 'Time',
      rowHeader: true,
      nowrap: true,
      cell: (attempt) => <Timestamp value={attempt.attempted_at} />,
    },
    { key: 'event_type', header: 'Event type', cell: (attempt) => attempt.event_type ?? 'ping' },
    {
      key: 'webhook_id',
      header: 'webhook-id',
      wide: true,
      cell: (attempt) => <OneLineCode value={attempt.webhook_id} />,
    },
    { key: 'status', header: 'Status', cell: (attempt) => attempt.status_code ?? '—' },
    {
      key: 'duration',
      header: 'Duration',
      nowrap: true,
      cell: (attempt) => formatDuration(attempt.duration_ms),
    },
    { key: 'outcome', header: 'Outcome', cell: (attempt) => <OutcomeBadge attempt={attempt} /> },
    {
      key: 'error',
      header: 'Error',
      wide: true,
      cell: (attempt) => (
        <Text size="xs" c={attempt.error ? 'red' : 'dimmed'} lineClamp={2} maw={220}>
          {attempt.error ?? '—'}
        </Text>
      ),
    },
    {
      key: 'open',
      header: 'Details',
      hideHeader: true,
      cell: (attempt) => (
        <Button
          size="xs"
          variant="light"
          onClick={() => onOpen(attempt.id)}
          aria-label={`Open attempt ${attempt.id}`}
        >
          Open
        </Button>
      ),
    },
  ];
}

/**
 * An endpoint's delivery log: attempts newest first, filtered by outcome,
 * event type and time range, paged by `next_cursor` (**Load more**); each opens to the request
 * as sent and the start of the response.
 */
export function DeliveryLog({ endpointId }: { endpointId: number }) {
  const [filters, setFilters] = useState<LogFilters>(NO_FILTERS);
  const [openAttempt, setOpenAttempt] = useState<number | null>(null);
  const log = useDeliveryLog(endpointId, filters);
  const attempts = log.data?.pages.flatMap((page) => page.items) ?? [];

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
      <PagedTable
        query={log}
        loading="Loading the delivery log…"
        errorTitle="The delivery log could not be loaded"
        empty={{
          title: !hasFilters(filters)
            ? 'No delivery attempts yet'
            : 'No delivery attempt matches these filters',
          description: !hasFilters(filters)
            ? 'Deliveries, redeliveries and test events appear here once they have a result.'
            : 'Change or clear the filters to see more.',
          icon: <IconListSearch size={28} aria-hidden />,
        }}
        columns={attemptColumns(setOpenAttempt)}
        rows={attempts}
        rowKey={(attempt) => attempt.id}
        label="Delivery attempts"
        minWidth={900}
        testId="delivery-log"
        rowTestId="attempt-row"
      />
      <AttemptDrawer
        attemptId={openAttempt}
        endpointId={endpointId}
        onClose={() => setOpenAttempt(null)}
      />
    </Stack>
  );
}
