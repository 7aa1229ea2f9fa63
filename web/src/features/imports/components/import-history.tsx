import { Anchor, Badge, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconFileImport } from '@tabler/icons-react';
import { Link } from 'react-router';
import { LoadMore } from '../../../components/ui/load-more';
import { EmptyPanel, PageError, PageLoader } from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { useCampaignImports, type LeadImport } from '../api/queries';

/**
 * Who made an import: its API key's name, else its prefix; or the dashboard user who imported a
 * spreadsheet.
 */
export function importedBy(item: LeadImport): string {
  if (item.api_key === null) return item.user ? `${item.user.email} (spreadsheet)` : 'unknown';
  return item.api_key.name
    ? `${item.api_key.name} (${item.api_key.prefix}…)`
    : `${item.api_key.prefix}…`;
}

/**
 * A campaign's import history (docs/dashboard.md#imports): every upload, newest first, with
 * who made it, its source and tags, and its counts (rows read = new leads + duplicates
 * skipped + rejected); each links to its page with the rejected
 * rows.
 */
export function ImportHistory({ campaignId }: { campaignId: number }) {
  const imports = useCampaignImports(campaignId);
  const items = imports.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <Stack gap="sm" component="section" aria-labelledby="imports-title">
      <Title order={2} size="h3" id="imports-title">
        Imports
      </Title>
      {imports.isPending ? (
        <PageLoader label="Loading the imports…" />
      ) : imports.isError ? (
        <PageError error={imports.error} onRetry={() => void imports.refetch()} />
      ) : items.length === 0 ? (
        <EmptyPanel
          title="No imports yet"
          description="Each upload of leads to this campaign, through the API, is listed here with its compliance record."
          icon={<IconFileImport size={28} aria-hidden />}
        />
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="sm" highlightOnHover aria-label="Imports">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Imported at</Table.Th>
                  <Table.Th>By</Table.Th>
                  <Table.Th>Source</Table.Th>
                  <Table.Th ta="right">Rows read</Table.Th>
                  <Table.Th ta="right">New leads</Table.Th>
                  <Table.Th ta="right">Duplicates skipped</Table.Th>
                  <Table.Th ta="right">Rejected</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((item) => (
                  <Table.Tr key={item.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/imports/${item.id}`} size="sm">
                        <Timestamp value={item.created_at} />
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{importedBy(item)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        <Text size="sm">{item.source}</Text>
                        {item.tags.map((tag) => (
                          <Badge key={tag} size="xs" variant="light">
                            {tag}
                          </Badge>
                        ))}
                      </Group>
                    </Table.Td>
                    <Table.Td ta="right">{item.received_count.toLocaleString()}</Table.Td>
                    <Table.Td ta="right">{item.new_count.toLocaleString()}</Table.Td>
                    <Table.Td ta="right">{item.duplicate_count.toLocaleString()}</Table.Td>
                    <Table.Td ta="right">
                      {item.invalid_count > 0 ? (
                        <Badge color="red" variant="light">
                          {item.invalid_count.toLocaleString()}
                        </Badge>
                      ) : (
                        '0'
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      <LoadMore pages={imports} />
    </Stack>
  );
}
