import { Badge, Group, Stack, Text, Title } from '@mantine/core';
import { IconReceipt } from '@tabler/icons-react';
import { type DataColumn } from '../../../components/ui/data-table';
import { PagedTable } from '../../../components/ui/paged-table';
import { Timestamp } from '../../../components/ui/timestamp';
import {
  RECEIPTS_SHOWN,
  useCampaignOptions,
  useErasureReceipts,
  type ErasureReceipt,
} from '../api/queries';

/** Who asked: the user's email, "CLI", or "API key #12" (a user no longer listed: "user #3"). */
export function requesterLabel(
  receipt: Pick<ErasureReceipt, 'requested_by' | 'requested_by_email'>,
) {
  if (receipt.requested_by_email) return receipt.requested_by_email;
  const [type, id] = receipt.requested_by.split(':');
  if (type === 'cli') return 'CLI';
  if (type === 'api_key') return `API key #${id}`;
  return `user #${id ?? '?'}`;
}

/** How each kind of record reads in a receipt's summary: one, many. */
const SUMMARY_WORDS: Array<[keyof ErasureReceipt['counts'], string, string]> = [
  ['leads', 'lead deleted', 'leads deleted'],
  ['import_rejections', 'rejected row deleted', 'rejected rows deleted'],
  ['spreadsheet_imports', 'spreadsheet import emptied', 'spreadsheet imports emptied'],
  ['events', 'event redacted', 'events redacted'],
  ['deliveries_cancelled', 'delivery cancelled', 'deliveries cancelled'],
  ['attempts', 'attempt redacted', 'attempts redacted'],
  ['idempotency_records', 'idempotency record deleted', 'idempotency records deleted'],
  ['suppression_entries', 'suppression entry added', 'suppression entries added'],
];

/** The counts that are not zero, as `1 lead deleted, 2 events redacted`; "nothing found" else. */
export function countsSummary(counts: ErasureReceipt['counts']): string {
  const parts = SUMMARY_WORDS.filter(([key]) => counts[key] > 0).map(
    ([key, one, many]) => `${counts[key]} ${counts[key] === 1 ? one : many}`,
  );
  return parts.length > 0 ? parts.join(', ') : 'nothing found';
}

function Scope({ receipt, names }: { receipt: ErasureReceipt; names: Map<number, string> }) {
  const by = [receipt.by_phone && 'phone', receipt.by_email && 'email'].filter(Boolean).join(' + ');
  return (
    <Stack gap={2}>
      <Text size="sm" inherit>
        {receipt.campaign_id === null
          ? 'All campaigns'
          : (names.get(receipt.campaign_id) ?? `Campaign #${receipt.campaign_id}`)}
      </Text>
      <Group gap={4}>
        <Text size="xs" c="dimmed">
          by {by || '—'}
        </Text>
        {receipt.suppressed && (
          <Badge size="xs" variant="light" color="gray">
            suppressed
          </Badge>
        )}
      </Group>
    </Stack>
  );
}

/** The account's latest erasure receipts: when, by whom, the scope and what was removed. */
export function ErasureReceipts() {
  const receipts = useErasureReceipts();
  const campaigns = useCampaignOptions();
  const names = new Map((campaigns.data ?? []).map((c) => [c.id, c.name]));
  const columns: Array<DataColumn<ErasureReceipt>> = [
    {
      key: 'when',
      header: 'When',
      rowHeader: true,
      nowrap: true,
      cell: (r) => <Timestamp value={r.created_at} />,
    },
    { key: 'by', header: 'By', cell: (r) => requesterLabel(r) },
    { key: 'scope', header: 'Scope', cell: (r) => <Scope receipt={r} names={names} /> },
    { key: 'counts', header: 'Removed', wide: true, cell: (r) => countsSummary(r.counts) },
  ];
  return (
    <Stack gap="sm" component="section" aria-labelledby="receipts-title">
      <Title order={2} size="h4" id="receipts-title">
        Erasure receipts
      </Title>
      <Text size="sm" c="dimmed">
        The latest {RECEIPTS_SHOWN}, newest first. A receipt names no one: it keeps what was
        removed, not the phone or the email.
      </Text>
      <PagedTable
        query={receipts}
        loading="Loading the erasure receipts…"
        empty={{
          title: 'No erasures yet',
          description: 'Each erasure leaves a receipt here.',
          icon: <IconReceipt size={28} aria-hidden />,
        }}
        columns={columns}
        rows={receipts.data ?? []}
        rowKey={(r) => r.id}
        labelledBy="receipts-title"
        minWidth={760}
        testId="erasure-receipts"
        rowTestId="erasure-receipt-row"
      />
    </Stack>
  );
}
