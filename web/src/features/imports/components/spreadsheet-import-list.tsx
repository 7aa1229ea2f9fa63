import { Anchor, Button, Group, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import { Link } from 'react-router';
import { PageError, PageLoader } from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { useCanChange } from '../../../lib/roles';
import { useCampaignSpreadsheetImports } from '../api/spreadsheet-queries';
import { SpreadsheetStatus } from './spreadsheet-import-page';

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
      {jobs.isPending ? (
        <PageLoader label="Loading the spreadsheet imports…" />
      ) : jobs.isError ? (
        <PageError error={jobs.error} onRetry={() => void jobs.refetch()} />
      ) : jobs.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          No spreadsheet imported yet.
          {canChange && ' Import a CSV or Excel file of leads with the button above.'}
        </Text>
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={640}>
            <Table aria-label="Spreadsheet imports" verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>File</Table.Th>
                  <Table.Th>Uploaded</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Progress</Table.Th>
                  <Table.Th>New leads</Table.Th>
                  <Table.Th>Duplicates skipped</Table.Th>
                  <Table.Th>Rejected</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {jobs.data.map((job) => (
                  <Table.Tr key={job.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/spreadsheet-imports/${job.id}`}>
                        {job.file_name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Timestamp value={job.created_at} />
                    </Table.Td>
                    <Table.Td>
                      <SpreadsheetStatus job={job} />
                    </Table.Td>
                    <Table.Td miw={140}>
                      <Progress
                        value={job.total_rows ? (job.rows_read / job.total_rows) * 100 : 0}
                        aria-label={`Progress of ${job.file_name}`}
                        size="sm"
                      />
                      <Text size="xs" c="dimmed">
                        {job.rows_read.toLocaleString()} / {job.total_rows.toLocaleString()} rows
                      </Text>
                    </Table.Td>
                    <Table.Td>{job.new_count.toLocaleString()}</Table.Td>
                    <Table.Td>{job.duplicate_count.toLocaleString()}</Table.Td>
                    <Table.Td>{job.invalid_count.toLocaleString()}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
    </Stack>
  );
}
