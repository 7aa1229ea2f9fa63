import { Group, NativeSelect, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { PageError, PageLoader } from '../../../components/ui/page-states';
import { RefreshButton } from '../../../components/ui/refresh-button';
import { useDeliveryLedger } from '../api/queries';
import type { LedgerDay } from '../api/types';

/** The windows offered, in days (the API takes 1 to 90). */
export const LEDGER_WINDOWS = [7, 30, 90] as const;
/** A week: enough to see a trend without pushing the delivery log below a long table. */
const DEFAULT_WINDOW = 7;

/** The five counts of a day, in the table's column order, with their headers. */
const COLUMNS: Array<{ key: Exclude<keyof LedgerDay, 'day'>; label: string }> = [
  { key: 'matched', label: 'Matched' },
  { key: 'delivered', label: 'Delivered' },
  { key: 'failed', label: 'Failed' },
  { key: 'pending', label: 'Pending' },
  { key: 'skipped', label: 'Skipped' },
];

/** One day: the day as the row's header, then its counts (zeros dimmed). */
function LedgerRow({ day }: { day: LedgerDay }) {
  return (
    <Table.Tr data-testid="ledger-row">
      <Table.Th scope="row" fw={500} style={{ whiteSpace: 'nowrap' }}>
        {day.day}
      </Table.Th>
      {COLUMNS.map(({ key }) => (
        <Table.Td key={key} ta="right" c={day[key] === 0 ? 'dimmed' : undefined}>
          {day[key]}
        </Table.Td>
      ))}
    </Table.Tr>
  );
}

/**
 * An endpoint's delivery ledger (docs/dashboard.md#delivery-ledger): one row per UTC day, today
 * first, with the deliveries made for the endpoint that day and where they stand now
 * (delivered, failed for good, pending, skipped: never sent because the endpoint was
 * disabled). Days without deliveries show zeros.
 */
export function DeliveryLedger({ endpointId }: { endpointId: number }) {
  const [days, setDays] = useState<number>(DEFAULT_WINDOW);
  const ledger = useDeliveryLedger(endpointId, days);

  return (
    <Stack gap="md" component="section" aria-labelledby="delivery-ledger-title">
      <Group justify="space-between" align="flex-end" gap="sm" wrap="wrap">
        <Stack gap={4}>
          <Title order={2} size="h3" id="delivery-ledger-title">
            Delivery ledger
          </Title>
          <Text size="sm" c="dimmed" maw={640}>
            Events this endpoint subscribed to, per day (UTC), by where each delivery stands now.
            Skipped deliveries were never sent: the endpoint was disabled.
          </Text>
        </Stack>
        <Group gap="sm" align="flex-end">
          <NativeSelect
            label="Days"
            value={String(days)}
            onChange={(event) => setDays(Number(event.currentTarget.value))}
            data={LEDGER_WINDOWS.map((n) => ({ value: String(n), label: `Last ${n} days` }))}
          />
          <RefreshButton query={ledger} variant="subtle" size="xs" />
        </Group>
      </Group>
      {ledger.isPending ? (
        <PageLoader label="Loading the delivery ledger…" />
      ) : ledger.isError ? (
        <PageError
          title="The delivery ledger could not be loaded"
          error={ledger.error}
          onRetry={() => void ledger.refetch()}
        />
      ) : (
        <Table.ScrollContainer minWidth={340}>
          <Table
            verticalSpacing="xs"
            horizontalSpacing="xs"
            fz="sm"
            striped
            withTableBorder
            aria-labelledby="delivery-ledger-title"
            data-testid="delivery-ledger"
          >
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Day (UTC)</Table.Th>
                {COLUMNS.map((column) => (
                  <Table.Th key={column.key} scope="col" ta="right">
                    {column.label}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {ledger.data.days.map((day) => (
                <LedgerRow key={day.day} day={day} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
