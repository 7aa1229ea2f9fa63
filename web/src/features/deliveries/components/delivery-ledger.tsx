import { Group, NativeSelect, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { DataTable, type DataColumn } from '../../../components/ui/data-table';
import { PageError, PageLoader } from '../../../components/ui/page-states';
import { RefreshButton } from '../../../components/ui/refresh-button';
import { useDeliveryLedger } from '../api/queries';
import type { DeliveryLedger as Ledger, LedgerDay } from '../../../api/types';

/** The windows offered, in days (the API takes 1 to 90). */
export const LEDGER_WINDOWS = [7, 30, 90] as const;
/** A week: enough to see a trend without pushing the delivery log below a long table. */
const DEFAULT_WINDOW = 7;

/** The seven counts of a day, in the table's column order, with their headers. */
const COUNTS: Array<{ key: Exclude<keyof LedgerDay, 'day'>; label: string }> = [
  { key: 'matched', label: 'Matched' },
  { key: 'delivered', label: 'Delivered' },
  { key: 'failed', label: 'Failed' },
  { key: 'pending', label: 'Pending' },
  { key: 'throttled', label: 'Of which throttled' },
  { key: 'skipped', label: 'Skipped' },
  // Not deliveries: events the endpoint's payload filter left out (docs/webhooks.md#payload-filters).
  { key: 'filtered', label: 'Filtered out' },
];

/** The day as each row's header, then its counts (zeros dimmed). */
const COLUMNS: Array<DataColumn<LedgerDay>> = [
  { key: 'day', header: 'Day (UTC)', rowHeader: true, nowrap: true, cell: (day) => day.day },
  ...COUNTS.map(({ key, label }): DataColumn<LedgerDay> => ({
    key,
    header: label,
    numeric: true,
    cell: (day) => (
      <Text span inherit c={day[key] === 0 ? 'dimmed' : undefined}>
        {day[key]}
      </Text>
    ),
  })),
];

/**
 * The line above the table about the endpoint's throttle (docs/webhooks.md#throttling): how
 * many pending deliveries wait on it, with its limits; null for an endpoint without one and
 * nothing waiting.
 */
export function throttleLine({ throttle }: Pick<Ledger, 'throttle'>): string | null {
  const limits = [
    throttle.max_deliveries_per_second === null
      ? null
      : `limit ${throttle.max_deliveries_per_second}/s`,
    throttle.max_in_flight === null ? null : `${throttle.max_in_flight} in flight`,
  ].filter((part) => part !== null);
  if (limits.length === 0 && throttle.waiting === 0) return null;
  const waiting = `${throttle.waiting.toLocaleString('en')} waiting on throttle`;
  return limits.length === 0 ? waiting : `${waiting} (${limits.join(', ')})`;
}

/**
 * An endpoint's delivery ledger (docs/dashboard.md#delivery-ledger): one row per UTC day, today
 * first, with the deliveries made for the endpoint that day and where they stand now
 * (delivered, failed for good, pending, of which waiting on the endpoint's throttle, skipped:
 * never sent because the endpoint was disabled). Days without deliveries show zeros.
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
            One delivery per event this endpoint subscribed to, per day (UTC), by where it stands
            now. Skipped deliveries were never sent: the endpoint was disabled. Filtered out counts
            the events its filter left out (no delivery was made). Each delivery attempt is in the
            delivery log below.
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
        <>
          {throttleLine(ledger.data) !== null && (
            <Text size="sm" data-testid="ledger-throttle">
              {throttleLine(ledger.data)}. The others pending wait for a first attempt or a retry.
            </Text>
          )}
          <DataTable
            columns={COLUMNS}
            rows={ledger.data.days}
            rowKey={(day) => day.day}
            labelledBy="delivery-ledger-title"
            minWidth={540}
            striped
            testId="delivery-ledger"
            rowTestId="ledger-row"
          />
        </>
      )}
    </Stack>
  );
}
