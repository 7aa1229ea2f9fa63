import { Badge, Button, Code, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { IconClipboardList, IconFilter } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { type DataColumn } from '../../../components/ui/data-table';
import { PageHeader } from '../../../components/ui/page-states';
import { RefreshButton } from '../../../components/ui/refresh-button';
import { Timestamp } from '../../../components/ui/timestamp';
import { PagedTable } from '../../../components/ui/paged-table';
import {
  NO_AUDIT_FILTERS,
  useAuditLog,
  type AuditAction,
  type AuditEntry,
  type AuditFilters,
} from '../api/queries';

/** Every action the log records, in the filter's order (the type below keeps the list whole). */
export const AUDIT_ACTIONS = [
  'session.sign_in',
  'session.sign_in_failed',
  'session.sign_out',
  'account.create',
  'account.notifications_update',
  'account.portal_origins_update',
  'campaign.create',
  'user.create',
  'user.disable',
  'user.reset_password',
  'api_key.create',
  'api_key.revoke',
  'endpoint.create',
  'endpoint.update',
  'endpoint.delete',
  'endpoint.disable',
  'endpoint.failing',
  'endpoint.recovered',
  'endpoint.test',
  'secret.rotate',
  'secret.reveal',
  'secret.change_scheme',
  'header.reveal',
  'transformation.save',
  'transformation.restore',
  'transformation.clear',
  'delivery.redeliver',
  'delivery.bulk_redeliver',
  'delivery.replay_missed',
  'delivery.bulk_redeliver_cancel',
  'import.start',
  'import.cancel',
  'import.discard',
  'erasure.create',
  'suppression.add',
  'suppression.remove',
  'suppression.import',
  'portal_link.create',
  'portal_link.revoke',
  'portal_link.exchange',
] as const satisfies readonly AuditAction[];
// An action the service documents but the list lacks fails the type check here.
const ALL_ACTIONS_LISTED: Exclude<AuditAction, (typeof AUDIT_ACTIONS)[number]> extends never
  ? true
  : false = true;
void ALL_ACTIONS_LISTED;

/**
 * Who made a change: a user's email, `cli` for the operator, `system` for the service itself,
 * `portal:<subject id> via capi_…` for an embedded portal session (the API key that minted its
 * link; `via cli` when the CLI did), `API key capi_…` for a key.
 */
export function actorLabel(actor: AuditEntry['actor']): string {
  if (actor.type === 'cli' || actor.type === 'system') return actor.type;
  if (actor.type === 'portal') return `${actor.label ?? 'portal'} via ${actor.key_prefix ?? 'cli'}`;
  if (actor.type === 'api_key') return `API key ${actor.key_prefix ?? '?'}`;
  return actor.email ?? `user ${actor.user_id ?? '?'}`;
}

/** The object an entry concerns: `endpoint 12`. */
export function objectLabel(entry: Pick<AuditEntry, 'object_type' | 'object_id'>): string {
  if (!entry.object_type) return '—';
  return entry.object_id ? `${entry.object_type} ${entry.object_id}` : entry.object_type;
}

/**
 * An entry's details as `[name, value]` pairs to read: nested objects flattened to dotted names
 * (`changes.enabled`), lists joined with commas, strings as they are, anything else as JSON.
 */
export function detailPairs(
  details: Record<string, unknown>,
  prefix = '',
): Array<[string, string]> {
  return Object.entries(details).flatMap(([key, value]): Array<[string, string]> => {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const nested = detailPairs(value as Record<string, unknown>, name);
      return nested.length > 0 ? nested : [[name, '{}']];
    }
    if (Array.isArray(value)) {
      return [[name, value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')]];
    }
    return [[name, typeof value === 'string' ? value : JSON.stringify(value)]];
  });
}

/** The details as one line per field, wrapped between words (a long URL alone at any point). */
function Details({ details }: { details: Record<string, unknown> }) {
  const pairs = detailPairs(details);
  if (pairs.length === 0)
    return (
      <Text span size="xs" c="dimmed">
        —
      </Text>
    );
  return (
    <Stack gap={2} data-testid="audit-details">
      {pairs.map(([name, value]) => (
        // Anywhere: a long token (a URL, an id) never widens the column past the scroll area.
        <Text key={name} size="xs" style={{ overflowWrap: 'anywhere' }}>
          <Text span inherit c="dimmed">
            {name}:
          </Text>{' '}
          {value}
        </Text>
      ))}
    </Stack>
  );
}

const COLUMNS: Array<DataColumn<AuditEntry>> = [
  {
    key: 'when',
    header: 'When',
    rowHeader: true,
    // Date over time where the row is tall anyway: the width goes to the details.
    cell: (entry) => <Timestamp value={entry.created_at} />,
  },
  {
    key: 'who',
    header: 'Who',
    wide: true,
    // An email never wraps at its hyphens in the table (three lines for one address).
    nowrap: true,
    cell: (entry) =>
      entry.actor.type !== 'user' ? (
        <Badge variant="light" color="gray">
          {actorLabel(entry.actor)}
        </Badge>
      ) : (
        // An email on one line where it fits (a card wraps it between words first).
        <Text span inherit style={{ overflowWrap: 'break-word' }}>
          {actorLabel(entry.actor)}
        </Text>
      ),
  },
  { key: 'ip', header: 'IP', cell: (entry) => entry.ip ?? '—' },
  { key: 'action', header: 'Action', cell: (entry) => <Code>{entry.action}</Code> },
  { key: 'object', header: 'Object', cell: (entry) => objectLabel(entry) },
  {
    key: 'details',
    header: 'Details',
    wide: true,
    cell: (entry) => <Details details={entry.details} />,
  },
];

/** The filters: an action and a user's email, applied with **Filter**. */
function Filters({
  applied,
  onApply,
}: {
  applied: AuditFilters;
  onApply: (filters: AuditFilters) => void;
}) {
  const [draft, setDraft] = useState<AuditFilters>(applied);
  const filtered = applied.action !== '' || applied.user.trim() !== '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ action: draft.action, user: draft.user.trim() });
  };
  return (
    <form onSubmit={submit} aria-label="Audit log filters">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <NativeSelect
          label="Action"
          value={draft.action}
          onChange={(event) =>
            setDraft({ ...draft, action: event.currentTarget.value as AuditFilters['action'] })
          }
          data={[{ value: '', label: 'Any action' }, ...AUDIT_ACTIONS]}
          style={{ flex: '1 1 14rem' }}
        />
        <TextInput
          label="User"
          description="Their email, in any case"
          placeholder="ada@example.com"
          type="email"
          maxLength={320}
          value={draft.user}
          onChange={(event) => setDraft({ ...draft, user: event.currentTarget.value })}
          style={{ flex: '1 1 14rem' }}
        />
        <Button type="submit" variant="light" leftSection={<IconFilter size={16} aria-hidden />}>
          Filter
        </Button>
        {filtered && (
          <Button
            variant="subtle"
            onClick={() => {
              setDraft(NO_AUDIT_FILTERS);
              onApply(NO_AUDIT_FILTERS);
            }}
          >
            Clear filters
          </Button>
        )}
      </Group>
    </form>
  );
}

/**
 * The account's audit log (docs/dashboard.md#audit-log): sign-ins and changes, newest first,
 * paged, filtered by action and by user; each entry's details as readable fields.
 */
export function AuditLogOverview() {
  const [filters, setFilters] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const log = useAuditLog(filters);
  const entries = log.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = filters.action !== '' || filters.user !== '';
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every sign-in and every change made through the dashboard or by your operator, newest first."
        actions={<RefreshButton query={log} variant="default" size="sm" />}
      />
      <Stack gap="md">
        <Filters applied={filters} onApply={setFilters} />
        <PagedTable
          query={log}
          loading="Loading the audit log…"
          empty={{
            title: filtered ? 'No entry matches these filters' : 'Nothing recorded yet',
            description: filtered
              ? 'Change or clear the filters to see more.'
              : 'Sign-ins and changes appear here as they happen.',
            icon: <IconClipboardList size={28} aria-hidden />,
          }}
          columns={COLUMNS}
          rows={entries}
          rowKey={(entry) => entry.id}
          label="Audit log"
          minWidth={860}
          testId="audit-log"
          rowTestId="audit-row"
        />
      </Stack>
    </>
  );
}
