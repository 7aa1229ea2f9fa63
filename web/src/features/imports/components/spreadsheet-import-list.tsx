import { Anchor, Button, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import { Link } from 'react-router';
import { type DataColumn } from '../../../components/ui/data-table';
import { Timestamp } from '../../../components/ui/timestamp';
import { PagedTable } from '../../../components/ui/paged-table';
import { useCanChange } from '../../../lib/roles';
import { useCampaignSpreadsheetImports, type SpreadsheetImport } from '../api/spreadsheet-queries';
import { SpreadsheetStatus } from './spreadsheet-import-page';

const COLUMNS: Array<DataColumn<SpreadsheetImport>> = [
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
  { key: 'status', header: 'Status', cell: (job) => <SpreadsheetStatus job={job} /> },
  {
    key: 'progress',
    header: 'Progress',
    cell: (job) => (
      <Stack gap={2} miw={120}>
        <Progress
          value={job.total_rows ? (job.rows_read / job.total_rows) * 100 : 0}
          aria-label={`Progress of ${job.file_name}`}
          size="sm"
        />
        <Text size="xs" c="dimmed">
          {job.rows_read.toLocaleString()} / {job.total_rows.toLocaleString()} rows
        </Text>
      </Stack>
    ),
  },
  {
    key: 'new',
    header: 'New leads',
    numeric: true,
    cell: (job) => job.new_count.toLocaleString(),
  },
  {
    key: 'duplicates',
    header: 'Duplicates skipped',
    numeric: true,
    cell: (job) => job.duplicate_count.toLocaleString(),
  },
  {
    key: 'rejected',
    header: 'Rejected',
    numeric: true,
    cell: (job) => job.invalid_count.toLocaleString(),
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
