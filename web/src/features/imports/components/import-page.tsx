import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconCircleCheck, IconDownload } from '@tabler/icons-react';
import { Link } from 'react-router';
import { type DataColumn } from '../../../components/ui/data-table';
import { Figure } from '../../../components/ui/figure';
import { OneLineCode } from '../../../components/ui/one-line-code';
import { useCampaigns } from '../../../api/campaigns';
import {
  PageHeader,
  PageReadFallback,
  type NotFoundText,
} from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { PagedTable } from '../../../components/ui/paged-table';
import { formatCount } from '../../../lib/format';
import { leadFieldLabel } from '../lib/lead-fields';
import {
  rejectionsCsvUrl,
  useImport,
  useImportRejections,
  type ImportRejection,
  type LeadImport,
} from '../api/queries';
import { ImportedBy } from './import-history';

const SUBMITTED_FIELDS = ['phone', 'email', 'first_name', 'last_name', 'company', 'title'] as const;

/** How many characters of a submitted value never break: an E.164 phone has at most 16. */
const UNBROKEN_CHARS = 16;

/** A submitted value as the table shows it: strings as sent, anything else as JSON. */
function shown(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * How the rejected rows of `item` are numbered, in words: by file row for a chunk of a
 * spreadsheet import (the header is row 1), else from 0 in the order the leads were sent.
 */
export function rowNumbering(item: Pick<LeadImport, 'spreadsheet_import_id'>): string {
  return item.spreadsheet_import_id
    ? 'Rows are numbered as in the spreadsheet, its header being row 1.'
    : 'Rows count from 0, in the order the leads were sent.';
}

function ComplianceRecord({ item }: { item: LeadImport }) {
  return (
    <Paper withBorder radius="md" p="lg">
      <Stack gap="md">
        <Title order={2} size="h4">
          Compliance record
        </Title>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
          <Figure label="Imported at">
            <Timestamp value={item.created_at} />
          </Figure>
          <Figure label={item.api_key ? 'By API key' : 'By'}>
            <ImportedBy item={item} />
          </Figure>
          <Figure label="Client IP">{item.client_ip ?? '—'}</Figure>
          <Figure label="Source">{item.source}</Figure>
          <Figure label="Tags">{item.tags.length ? item.tags.join(', ') : '—'}</Figure>
          <Figure label="Disclaimer version">
            {item.disclaimer_version}, acknowledged{' '}
            <Timestamp value={item.compliance_acknowledged_at} />
          </Figure>
        </SimpleGrid>
        <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md">
          <Figure label="Rows read">{formatCount(item.received_count)}</Figure>
          <Figure label="New leads">{formatCount(item.new_count)}</Figure>
          <Figure label="Duplicates skipped">{formatCount(item.duplicate_count)}</Figure>
          <Figure label="Rejected">{formatCount(item.invalid_count)}</Figure>
        </SimpleGrid>
        <Text size="xs" c="dimmed">
          Import id <OneLineCode value={item.id} />
        </Text>
      </Stack>
    </Paper>
  );
}

/**
 * The rejected rows' columns: the row (0-based for an API upload, the file row for a chunk of a
 * spreadsheet import), why it was rejected, and each field as submitted under its label (the
 * failing one bold). A value of up to 16 characters (any phone) stays whole; a longer unbroken
 * one wraps anywhere within its own cell.
 */
const REJECTION_COLUMNS: Array<DataColumn<ImportRejection>> = [
  {
    key: 'row',
    header: 'Row',
    rowHeader: true,
    cell: (row) => row.row,
    cardCell: (row) => `Row ${row.row}`,
  },
  {
    key: 'problem',
    header: 'Problem',
    wide: true,
    cell: (row) => (
      <Text size="sm" c="red" component="span">
        {row.message}
      </Text>
    ),
  },
  ...SUBMITTED_FIELDS.map((field): DataColumn<ImportRejection> => ({
    key: field,
    header: leadFieldLabel(field),
    wide: field === 'email',
    cell: (row) => {
      const value = shown(row.submitted[field]) || '—';
      const short = value.length <= UNBROKEN_CHARS;
      return (
        <Text
          size="sm"
          component="span"
          fw={row.field === field ? 700 : undefined}
          title={short ? value : undefined}
          style={{
            display: 'inline-block',
            maxWidth: 'min(24rem, 100%)',
            // A short value (a phone, an email, a name) stays on one line, cut with an ellipsis
            // only where even the card is narrower; a long one wraps anywhere in its cell.
            ...(short
              ? { whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }
              : { overflowWrap: 'anywhere' }),
            verticalAlign: 'bottom',
          }}
        >
          {value}
        </Text>
      );
    },
  })),
];

/** What the not-found page says for an import id the account does not have. */
const IMPORT_NOT_FOUND: NotFoundText = {
  title: 'Import not found',
  description:
    'Your account has no import at this address. It may belong to another account, or the link is mistyped.',
};

/**
 * One import (docs/dashboard.md#imports): its compliance record and counts, and the rows it
 * rejected with what was submitted, to read here or download as CSV.
 */
export function ImportPage({ importId }: { importId: string }) {
  const item = useImport(importId);
  const campaigns = useCampaigns();
  const rejections = useImportRejections(importId);
  if (!item.isSuccess) {
    return (
      <PageReadFallback query={item} loading="Loading the import…" notFound={IMPORT_NOT_FOUND} />
    );
  }
  const rows = rejections.data?.pages.flatMap((page) => page.items) ?? [];
  const campaignPath = `/campaigns/${item.data.campaign_id}`;
  const campaignName =
    campaigns.data?.find((c) => c.id === item.data.campaign_id)?.name ??
    `Campaign ${item.data.campaign_id}`;
  return (
    <>
      <Breadcrumbs mb="xs" aria-label="Breadcrumb">
        <Anchor component={Link} to="/campaigns" size="sm">
          Campaigns
        </Anchor>
        <Anchor component={Link} to={campaignPath} size="sm">
          {campaignName}
        </Anchor>
        <Text size="sm">Import</Text>
      </Breadcrumbs>
      <PageHeader
        title="Import"
        description="An upload of leads: who sent it, what it was acknowledged under, and the rows it rejected."
        actions={
          item.data.rejected_rows_kept > 0 ? (
            <Button
              component="a"
              href={rejectionsCsvUrl(importId)}
              download
              variant="default"
              leftSection={<IconDownload size={16} aria-hidden />}
            >
              Download rejected rows (CSV)
            </Button>
          ) : null
        }
      />
      <Stack gap="lg">
        <ComplianceRecord item={item.data} />
        <Stack gap="sm" component="section" aria-labelledby="rejections-title">
          <Group justify="space-between">
            <Title order={2} size="h4" id="rejections-title">
              Rejected rows
            </Title>
            {item.data.invalid_count > 0 && (
              <Badge color="red" variant="light">
                {formatCount(item.data.invalid_count)} rejected
              </Badge>
            )}
          </Group>
          {item.data.invalid_count === 0 ? (
            <Alert color="green" icon={<IconCircleCheck size={18} aria-hidden />}>
              Every lead of this import was valid.
            </Alert>
          ) : item.data.rejected_rows_kept === 0 ? (
            <Alert color="gray">
              The rejected rows are no longer kept: they are removed after the retention period,
              like delivery attempts. The counts above stay.
            </Alert>
          ) : (
            <PagedTable
              query={rejections}
              loading="Loading the rejected rows…"
              caption={
                <Text size="sm" c="dimmed" data-testid="row-numbering">
                  {rowNumbering(item.data)} The field that failed is in bold.
                </Text>
              }
              columns={REJECTION_COLUMNS}
              rows={rows}
              rowKey={(row) => row.row}
              label="Rejected rows"
              minWidth={760}
              striped
            />
          )}
        </Stack>
      </Stack>
    </>
  );
}
