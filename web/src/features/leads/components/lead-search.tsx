import { Anchor, Button, Group, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconSearch, IconUserSearch } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { type DataColumn } from '../../../components/ui/data-table';
import { Timestamp } from '../../../components/ui/timestamp';
import { PagedTable } from '../../../components/ui/paged-table';
import { useLeadSearch, type LeadSearchInput } from '../api/queries';
import type { LeadSearchField, LeadSearchPage, LeadSummary } from '../../../api/types';

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

const LEAD_COLUMNS: Array<DataColumn<LeadSummary>> = [
  { key: 'name', header: 'Name', rowHeader: true, cell: (lead) => <LeadLink lead={lead} /> },
  { key: 'phone', header: 'Phone', nowrap: true, cell: (lead) => lead.phone },
  {
    key: 'email',
    header: 'Email',
    wide: true,
    cell: (lead) => (
      <Text span inherit style={{ overflowWrap: 'anywhere' }}>
        {lead.email ?? '—'}
      </Text>
    ),
  },
  { key: 'company', header: 'Company', cell: (lead) => lead.company ?? '—' },
  {
    key: 'added',
    header: 'Added',
    nowrap: true,
    cell: (lead) => <Timestamp value={lead.created_at} />,
  },
];

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
  const pages = search.data?.pages ?? [];
  const first = pages.at(0);
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
      ) : (
        <PagedTable
          query={search}
          loading="Searching…"
          errorTitle="The search could not be run"
          retry={false}
          // Shown once the first page is in (`first` is there): the empty state, or the count.
          empty={
            first && {
              title: 'No lead matches',
              description: `No lead of this campaign has ${matched(first)}.`,
              icon: <IconUserSearch size={28} aria-hidden />,
            }
          }
          caption={
            first && (
              <Text size="sm" c="dimmed" aria-live="polite">
                {leads.length}
                {search.hasNextPage ? '+' : ''} {leads.length === 1 ? 'lead' : 'leads'} with{' '}
                {matched(first)}
              </Text>
            )
          }
          columns={LEAD_COLUMNS}
          rows={leads}
          rowKey={(lead) => lead.id}
          label="Leads found"
          minWidth={720}
          testId="lead-results"
          rowTestId="lead-row"
        />
      )}
    </Stack>
  );
}
