import { Badge, Code, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconClipboardList } from '@tabler/icons-react';
import { EmptyPanel, PageError, PageHeader, PageLoader } from '../../../components/ui/page-states';
import { LoadMore } from '../../../components/ui/load-more';
import { RefreshButton } from '../../../components/ui/refresh-button';
import { Timestamp } from '../../../components/ui/timestamp';
import { useAuditLog, type AuditEntry } from '../api/queries';

/** Who made a change: a user's email, `cli` for the operator, `system` for the service itself. */
export function actorLabel(actor: AuditEntry['actor']): string {
  if (actor.type === 'cli' || actor.type === 'system') return actor.type;
  return actor.email ?? `user ${actor.user_id ?? '?'}`;
}

/** The object an entry concerns: `endpoint 12`. */
export function objectLabel(entry: Pick<AuditEntry, 'object_type' | 'object_id'>): string {
  if (!entry.object_type) return '—';
  return entry.object_id ? `${entry.object_type} ${entry.object_id}` : entry.object_type;
}

function detailsText(details: Record<string, unknown>): string {
  const keys = Object.keys(details);
  if (keys.length === 0) return '';
  return JSON.stringify(details);
}

/** The entries as stacked cards, for narrow screens. */
function EntryCards({ entries }: { entries: AuditEntry[] }) {
  return (
    <Stack gap="sm" data-testid="audit-log">
      {entries.map((entry) => (
        <Paper key={entry.id} withBorder radius="md" p="sm" data-testid="audit-row">
          <Stack gap={4}>
            <Group justify="space-between" gap="xs">
              <Code>{entry.action}</Code>
              <Text size="xs" c="dimmed">
                <Timestamp value={entry.created_at} />
              </Text>
            </Group>
            <Text size="sm" style={{ wordBreak: 'break-all' }}>
              {actorLabel(entry.actor)}
              {entry.ip ? ` · ${entry.ip}` : ''}
            </Text>
            <Text size="sm">{objectLabel(entry)}</Text>
            {detailsText(entry.details) && (
              <Text size="xs" c="dimmed" lineClamp={3} style={{ wordBreak: 'break-all' }}>
                {detailsText(entry.details)}
              </Text>
            )}
          </Stack>
        </Paper>
      ))}
    </Stack>
  );
}

/** The account's audit log (CONTRACT 10.4.8): sign-ins and changes, newest first, paged. */
export function AuditLogOverview() {
  const log = useAuditLog();
  const entries = log.data?.pages.flatMap((page) => page.items) ?? [];
  const narrow = useMediaQuery('(max-width: 48em)');
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every sign-in and every change made through the dashboard or by your operator, newest first."
        actions={<RefreshButton query={log} variant="default" size="sm" />}
      />
      {log.isPending ? (
        <PageLoader label="Loading the audit log…" />
      ) : log.isError ? (
        <PageError error={log.error} onRetry={() => void log.refetch()} />
      ) : entries.length === 0 ? (
        <EmptyPanel
          title="Nothing recorded yet"
          description="Sign-ins and changes appear here as they happen."
          icon={<IconClipboardList size={28} aria-hidden />}
        />
      ) : (
        <Stack gap="md">
          {narrow ? (
            <EntryCards entries={entries} />
          ) : (
            <Paper withBorder radius="md">
              <Table.ScrollContainer minWidth={820}>
                <Table verticalSpacing="xs" fz="sm" data-testid="audit-log">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>When</Table.Th>
                      <Table.Th>Who</Table.Th>
                      <Table.Th>IP</Table.Th>
                      <Table.Th>Action</Table.Th>
                      <Table.Th>Object</Table.Th>
                      <Table.Th>Details</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {entries.map((entry) => (
                      <Table.Tr key={entry.id} data-testid="audit-row">
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>
                          <Timestamp value={entry.created_at} />
                        </Table.Td>
                        <Table.Td>
                          {entry.actor.type !== 'user' ? (
                            <Badge variant="light" color="gray">
                              {actorLabel(entry.actor)}
                            </Badge>
                          ) : (
                            actorLabel(entry.actor)
                          )}
                        </Table.Td>
                        <Table.Td>{entry.ip ?? '—'}</Table.Td>
                        <Table.Td>
                          <Code>{entry.action}</Code>
                        </Table.Td>
                        <Table.Td>{objectLabel(entry)}</Table.Td>
                        <Table.Td maw={280}>
                          <Text
                            size="xs"
                            c="dimmed"
                            lineClamp={2}
                            style={{ wordBreak: 'break-all' }}
                          >
                            {detailsText(entry.details)}
                          </Text>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Paper>
          )}
          <LoadMore pages={log} />
        </Stack>
      )}
    </>
  );
}
