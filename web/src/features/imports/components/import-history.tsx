import { Anchor, Badge, Group, Stack, Title } from '@mantine/core';
import { IconFileImport } from '@tabler/icons-react';
import { Link } from 'react-router';
import { type DataColumn } from '../../../components/ui/data-table';
import { formatCount } from '../../../lib/format';
import { OneLineText } from '../../../components/ui/one-line-code';
import { Timestamp } from '../../../components/ui/timestamp';
import { PagedTable } from '../../../components/ui/paged-table';
import { useCampaignImports, type LeadImport } from '../api/queries';

/**
 * Who made an import: its API key's name, else its prefix; or the dashboard user who imported a
 * spreadsheet, the email on one line (never broken at its hyphens).
 */
export function ImportedBy({ item }: { item: LeadImport }) {
  if (item.api_key === null) {
    if (!item.user) return <>unknown</>;
    return (
      <>
        <OneLineText value={item.user.email} /> (spreadsheet)
      </>
    );
  }
  return (
    <>
      {item.api_key.name
        ? `${item.api_key.name} (${item.api_key.prefix}…)`
        : `${item.api_key.prefix}…`}
    </>
  );
}

/** The counts of an import, in the table's order after who made it and its source. */
const COUNTS: Array<DataColumn<LeadImport>> = [
  {
    key: 'received',
    header: 'Rows read',
    numeric: true,
    cell: (item) => formatCount(item.received_count),
  },
  {
    key: 'new',
    header: 'New leads',
    numeric: true,
    cell: (item) => formatCount(item.new_count),
  },
  {
    key: 'duplicates',
    header: 'Duplicates skipped',
    numeric: true,
    cell: (item) => formatCount(item.duplicate_count),
  },
  {
    key: 'rejected',
    header: 'Rejected',
    numeric: true,
    cell: (item) =>
      item.invalid_count > 0 ? (
        <Badge color="red" variant="light">
          {formatCount(item.invalid_count)}
        </Badge>
      ) : (
        '0'
      ),
  },
];

const COLUMNS: Array<DataColumn<LeadImport>> = [
  {
    key: 'created_at',
    header: 'Imported at',
    rowHeader: true,
    nowrap: true,
    cell: (item) => (
      <Anchor component={Link} to={`/imports/${item.id}`} size="sm">
        <Timestamp value={item.created_at} />
      </Anchor>
    ),
  },
  { key: 'by', header: 'By', wide: true, cell: (item) => <ImportedBy item={item} /> },
  {
    key: 'source',
    header: 'Source',
    wide: true,
    cell: (item) => (
      <Group gap={4} component="span">
        <span>{item.source}</span>
        {item.tags.map((tag) => (
          <Badge key={tag} size="xs" variant="light" tt="none">
            {tag}
          </Badge>
        ))}
      </Group>
    ),
  },
  ...COUNTS,
];

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
      <PagedTable
        query={imports}
        loading="Loading the imports…"
        empty={{
          title: 'No imports yet',
          description:
            'Each upload of leads to this campaign, through the API, is listed here with its compliance record.',
          icon: <IconFileImport size={28} aria-hidden />,
        }}
        columns={COLUMNS}
        rows={items}
        rowKey={(item) => item.id}
        label="Imports"
        minWidth={720}
      />
    </Stack>
  );
}
