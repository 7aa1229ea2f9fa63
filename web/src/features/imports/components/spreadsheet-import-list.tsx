import { Anchor, Button, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import { Link } from 'react-router';
import { type DataColumn } from '../../../components/ui/data-table';
import { Timestamp } from '../../../components/ui/timestamp';
import { PagedTable } from '../../../components/ui/paged-table';
import { formatCount } from '../../../lib/format';
import { useCanChange } from '../../../lib/roles';
import {
  useCampaignSpreadsheetImports,
  type SpreadsheetImportSummary,
} from '../api/spreadsheet-queries';
import { DiscardNote, SpreadsheetStatus } from './spreadsheet-import-page';

/** The progress of an import: a bar and `rows read / rows`, as wide as its cell allows. */
function ImportProgress({ job }: { job: SpreadsheetImportSummary }) {
  return (
    <Stack gap={2}>
      <Progress
        value={job.total_rows ? (job.rows_read / job.total_rows) * 100 : 0}
        aria-label={`Progress of ${job.file_name}`}
        size="sm"
      />
      <Text size="xs" c="dimmed">
        {formatCount(job.rows_read)} / {formatCount(job.total_rows)}{' '}
        {job.total_rows === 1 ? 'row' : 'rows'}
      </Text>
    </Stack>
  );
}

const COLUMNS: Array<DataColumn<SpreadsheetImportSummary>> = [
  {
    key: 'file',
    header: 'File',
    rowHeader: true,
    cell: (job) => (
      <Anchor
        component={Link}
        to={`/spreadsheet-imports/${job.id}`}
        size="sm"
        style={{ overflowWrap: 'anywhere' }}
      >
        {job.file_name}
      </Anchor>
    ),
  },
  { key: 'uploaded', header: 'Uploaded', cell: (job) => <Timestamp value={job.created_at} /> },
  {
    key: 'status',
    header: 'Status',
    // A card gives the badge and when the upload is discarded a line of their own.
    wide: true,
    cell: (job) => (
      <Stack gap={4} align="flex-start">
        <SpreadsheetStatus job={job} />
        <DiscardNote job={job} />
      </Stack>
    ),
  },
  {
    key: 'progress',
    header: 'Progress',
    // The bar spans the card; in the table it keeps a readable width.
    wide: true,
    cell: (job) => (
      <Stack miw={120} gap={0}>
        <ImportProgress job={job} />
      </Stack>
    ),
    cardCell: (job) => <ImportProgress job={job} />,
  },
  {
    key: 'new',
    header: 'New leads',
    numeric: true,
    cell: (job) => formatCount(job.new_count),
  },
  {
    key: 'duplicates',
    header: 'Duplicates skipped',
    numeric: true,
    cell: (job) => formatCount(job.duplicate_count),
  },
  {
    key: 'rejected',
    header: 'Rejected',
    numeric: true,
    cell: (job) => formatCount(job.invalid_count),
  },
];

/**
 * A campaign's spreadsheet imports (docs/dashboard.md#spreadsheet-imports): the last 20, newest
 * first, with their status and progress; admins get the "Import a spreadsheet" button.
 */
export function SpreadsheetImportList({ campaignId }: { campaignId: number }) {
  const canChange = useCanChange();
  const jobs = useCampaignSpreadsheetImports(campaignId);
  return (
    <Stack gap="sm" component="section" aria-labelledby="spreadsheet-imports-title">
      <Group justify="space-between">
        <Title order={2} size="h3" id="spreadsheet-imports-title">
          Spreadsheet imports
        </Title>
        {canChange && (
          <Button
            component={Link}
            to={`/campaigns/${campaignId}/import`}
            variant="light"
            leftSection={<IconFileSpreadsheet size={16} aria-hidden />}
          >
            Import a spreadsheet
          </Button>
        )}
      </Group>
      <PagedTable
        query={jobs}
        loading="Loading the spreadsheet imports…"
        empty={
          <Text size="sm" c="dimmed">
            No spreadsheet imported yet.
            {canChange && ' Import a CSV or Excel file of leads with the button above.'}
          </Text>
        }
        columns={COLUMNS}
        rows={jobs.data ?? []}
        rowKey={(job) => job.id}
        label="Spreadsheet imports"
        minWidth={640}
      />
    </Stack>
  );
}
