import {
  Anchor,
  Button,
  Group,
  NativeSelect,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconSearch, IconUserSearch } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { LoadMore } from '../../../components/ui/load-more';
import { EmptyPanel, PageError, PageLoader } from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { useLeadSearch, type LeadSearchInput } from '../api/lead-queries';
import type { LeadSearchField, LeadSearchPage, LeadSummary } from '../api/types';

const FIELDS: Array<{ value: LeadSearchField; label: string }> = [
  { value: '', label: 'Guess from the text' },
  { value: 'phone', label: 'Phone' },
  { value: 'email', label: 'Email' },
  { value: 'name', label: 'Name' },
];

/** A lead's name as shown: "first last", or its phone when it has neither. */
export function leadName(lead: Pick<LeadSummary, 'first_name' | 'last_name' | 'phone'>): string {
  return [lead.first_name, lead.last_name].filter(Boolean).join(' ') || lead.phone;
}

/** What the service matched, in words: "phone +14155550100", "emails starting with …". */
function matched(page: LeadSearchPage): string {
  if (page.field === 'phone') return `the phone ${page.value}`;
  return `${page.field === 'email' ? 'emails' : 'names'} starting with “${page.value}”`;
}

function LeadLink({ lead }: { lead: LeadSummary }) {
  return (
    <Anchor component={Link} to={`/leads/${lead.id}`} fw={600}>
      {leadName(lead)}
    </Anchor>
  );
}

/** The results as stacked cards, for narrow screens. */
function LeadCards({ leads }: { leads: LeadSummary[] }) {
  return (
    <Stack gap="sm" data-testid="lead-results">
      {leads.map((lead) => (
        <Paper key={lead.id} withBorder radius="md" p="sm" data-testid="lead-row">
          <Stack gap={4}>
            <LeadLink lead={lead} />
            <Text size="sm">{lead.phone}</Text>
            {lead.email && (
              <Text size="sm" style={{ wordBreak: 'break-all' }}>
                {lead.email}
              </Text>
            )}
            <Text size="xs" c="dimmed">
              Added <Timestamp value={lead.created_at} />
            </Text>
          </Stack>
        </Paper>
      ))}
    </Stack>
  );
}

function LeadTable({ leads }: { leads: LeadSummary[] }) {
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={720}>
        <Table verticalSpacing="xs" highlightOnHover fz="sm" data-testid="lead-results">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Phone</Table.Th>
              <Table.Th>Email</Table.Th>
              <Table.Th>Company</Table.Th>
              <Table.Th>Added</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {leads.map((lead) => (
              <Table.Tr key={lead.id} data-testid="lead-row">
                <Table.Td>
                  <LeadLink lead={lead} />
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{lead.phone}</Table.Td>
                <Table.Td style={{ wordBreak: 'break-all' }}>{lead.email ?? '—'}</Table.Td>
                <Table.Td>{lead.company ?? '—'}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Timestamp value={lead.created_at} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

/**
 * A campaign's lead search (docs/dashboard.md#leads): one box for a phone (any format of the
 * campaign's region, the whole number), the start of an email or the start of a name, with an
 * optional "Search by"; results in the service's order, 25 at a time behind **Load more**, each
 * linking to the lead's page.
 */
export function LeadSearch({ campaignId }: { campaignId: number }) {
  const [text, setText] = useState('');
  const [field, setField] = useState<LeadSearchField>('');
  const [submitted, setSubmitted] = useState<LeadSearchInput | null>(null);
  const search = useLeadSearch(campaignId, submitted);
  const narrow = useMediaQuery('(max-width: 48em)');
  const pages = search.data?.pages ?? [];
  const leads = pages.flatMap((page) => page.items);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const q = text.trim();
    setSubmitted(q === '' ? null : { q, field });
  };

  return (
    <Stack gap="md" component="section" aria-labelledby="lead-search-title" mt="xl">
      <Title order={2} size="h3" id="lead-search-title">
        Leads
      </Title>
      <form onSubmit={onSubmit} role="search" aria-label="Lead search">
        <Group align="flex-end" gap="sm" wrap="wrap">
          <TextInput
            label="Search leads"
            description="A phone in any format, or the start of an email or a name"
            placeholder="(415) 555-0100, ada@…, Lovelace"
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
            style={{ flex: '1 1 16rem' }}
            maxLength={320}
          />
          <NativeSelect
            label="Search by"
            value={field}
            onChange={(event) => setField(event.currentTarget.value as LeadSearchField)}
            data={FIELDS}
            style={{ flex: '0 1 12rem' }}
          />
          <Button type="submit" leftSection={<IconSearch size={16} aria-hidden />}>
            Search
          </Button>
        </Group>
      </form>
      {submitted === null ? (
        <Text size="sm" c="dimmed">
          Type a phone, an email or a name and press Search.
        </Text>
      ) : search.isPending ? (
        <PageLoader label="Searching…" />
      ) : search.isError ? (
        <PageError title="The search could not be run" error={search.error} />
      ) : leads.length === 0 ? (
        <EmptyPanel
          title="No lead matches"
          description={`No lead of this campaign has ${matched(pages[0])}.`}
          icon={<IconUserSearch size={28} aria-hidden />}
        />
      ) : (
        <>
          <Text size="sm" c="dimmed" aria-live="polite">
            {leads.length}
            {search.hasNextPage ? '+' : ''} {leads.length === 1 ? 'lead' : 'leads'} with{' '}
            {matched(pages[0])}
          </Text>
          {narrow ? <LeadCards leads={leads} /> : <LeadTable leads={leads} />}
        </>
      )}
      <LoadMore pages={search} />
    </Stack>
  );
}
