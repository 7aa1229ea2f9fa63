import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Checkbox,
  Code,
  Group,
  Paper,
  Progress,
  Select,
  SimpleGrid,
  Stack,
  Stepper,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconDownload, IconPlayerPlay, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { DataTable, type DataColumn } from '../../../components/ui/data-table';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { ErrorText } from '../../../components/ui/error-text';
import { Figure } from '../../../components/ui/figure';
import {
  PageHeader,
  PageReadFallback,
  type NotFoundText,
} from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { countOf, formatBytes, formatCount } from '../../../lib/format';
import { useCanChange } from '../../../lib/roles';
import { useCampaigns } from '../../../api/campaigns';
import { LEAD_FIELD_LABELS, type LeadField } from '../lib/lead-fields';
import {
  spreadsheetRejectionsCsvUrl,
  useCancelSpreadsheetImport,
  useDiscardSpreadsheetImport,
  useSpreadsheetImport,
  useSpreadsheetPreview,
  useStartSpreadsheetImport,
  type ColumnMapping,
  type SpreadsheetImport,
  type SpreadsheetImportSummary,
  type SpreadsheetPreviewRow,
} from '../api/spreadsheet-queries';

/** The version of the compliance disclaimer this page shows and records. */
export const DISCLAIMER_VERSION = 'v1.0';

/** A column as the mapping's choices name it: its letter and header (`B · First Name`). */
function columnName(index: number, header: string): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return header ? `${letters} · ${header}` : `${letters} (no header)`;
}

const STATUS_COLOR: Record<SpreadsheetImport['status'], string> = {
  uploaded: 'blue',
  running: 'blue',
  done: 'green',
  cancelled: 'gray',
  failed: 'red',
};

/** The import's status as a badge. */
export function SpreadsheetStatus({ job }: { job: Pick<SpreadsheetImportSummary, 'status'> }) {
  const label = {
    uploaded: 'Waiting for mapping',
    running: 'Importing',
    done: 'Done',
    cancelled: 'Cancelled',
    failed: 'Failed',
  }[job.status];
  return (
    <Badge color={STATUS_COLOR[job.status]} variant="light">
      {label}
    </Badge>
  );
}

/**
 * When an upload never started is discarded with its file (docs/dashboard.md#abandoned-uploads);
 * nothing once it started.
 */
export function DiscardNote({
  job,
  mb,
}: {
  job: Pick<SpreadsheetImportSummary, 'status' | 'discard_at'>;
  /** Space below it (Mantine spacing). */
  mb?: string;
}) {
  if (job.status !== 'uploaded' || !job.discard_at) return null;
  return (
    <Text size="xs" c="dimmed" component="span" display="block" mb={mb}>
      Discarded after <Timestamp value={job.discard_at} /> unless started
    </Text>
  );
}

/**
 * The preview's columns: the row's number in the file, each lead field as it would be stored
 * (or as the file has it, for a rejected row), and the check: OK or why the row is rejected.
 */
function previewColumns(
  job: SpreadsheetImport,
  mapping: ColumnMapping,
): Array<DataColumn<SpreadsheetPreviewRow>> {
  return [
    {
      key: 'row',
      header: 'Row',
      rowHeader: true,
      cell: (row) => row.row,
      cardCell: (row) => `Row ${row.row}`,
    },
    ...LEAD_FIELD_LABELS.map(([field, label]): DataColumn<SpreadsheetPreviewRow> => ({
      key: field,
      header: label,
      // A phone or an email needs a card's whole width to stay on one line.
      wide: field === 'email' || field === 'phone',
      cell: (row) => {
        const column = mapping[field];
        const raw = column === undefined ? '' : (job.sample_rows[row.row - 2]?.[column] ?? '');
        const value = (row.lead ? (row.lead[field] ?? '') : raw) || '—';
        // A phone number never breaks in the middle.
        return field === 'phone' ? (
          <Text span inherit style={{ whiteSpace: 'nowrap' }}>
            {value}
          </Text>
        ) : (
          value
        );
      },
    })),
    {
      key: 'check',
      header: 'Check',
      wide: true,
      cell: (row) =>
        row.error ? (
          <Text size="sm" c="red" component="span">
            {row.error.message}
          </Text>
        ) : (
          <Badge color="green" variant="light">
            OK
          </Badge>
        ),
    },
  ];
}

/** Map columns to lead fields, preview the first rows as the service validates them, acknowledge, start. */
function MappingStep({ job }: { job: SpreadsheetImport }) {
  const [mapping, setMapping] = useState<ColumnMapping>(() => ({ ...job.suggested_mapping }));
  const [source, setSource] = useState('spreadsheet');
  const [tags, setTags] = useState<string[]>([]);
  const [skipDuplicates, setSkipDuplicates] = useState(true);
  const [acknowledged, setAcknowledged] = useState(false);
  const hasPhone = mapping.phone !== undefined;
  const preview = useSpreadsheetPreview(job.id, mapping, hasPhone);
  const start = useStartSpreadsheetImport(job);
  const options = job.headers.map((header, index) => ({
    value: String(index),
    label: columnName(index, header),
  }));
  const setField = (field: LeadField, value: string | null) =>
    setMapping((current) => {
      const next: ColumnMapping = { ...current };
      if (value === null) delete next[field];
      else {
        // A column feeds one field: taking it from another field clears that one.
        for (const [other, column] of Object.entries(next)) {
          if (column === Number(value)) delete next[other as LeadField];
        }
        next[field] = Number(value);
      }
      return next;
    });
  const rows = hasPhone ? (preview.data ?? []) : [];
  const invalid = rows.filter((row) => row.error !== null).length;
  const sampled = job.sample_rows.length;
  const shown =
    sampled < job.total_rows
      ? `The first ${formatCount(sampled)} of ${countOf(job.total_rows, 'row')}`
      : job.total_rows === 1
        ? 'The file’s only row'
        : `All ${countOf(job.total_rows, 'row')}`;

  return (
    <Stack gap="lg">
      <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="mapping-title">
        <Stack gap="sm">
          <Title order={2} size="h4" id="mapping-title">
            Map columns to lead fields
          </Title>
          <Text size="sm" c="dimmed">
            Matched from the header row where the names were clear; check them. Only Phone is
            required. Columns left unmapped are not imported.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
            {LEAD_FIELD_LABELS.map(([field, label]) => (
              <Select
                key={field}
                label={label}
                required={field === 'phone'}
                placeholder="Not imported"
                data={options}
                value={mapping[field] === undefined ? null : String(mapping[field])}
                onChange={(value) => setField(field, value)}
                clearable={field !== 'phone'}
                comboboxProps={{ withinPortal: true }}
              />
            ))}
          </SimpleGrid>
          {!hasPhone && (
            <Alert color="yellow" title="Choose the phone column">
              Every lead needs a phone number: pick the column that holds it.
            </Alert>
          )}
        </Stack>
      </Paper>

      <Paper withBorder radius="md" component="section" aria-labelledby="preview-title">
        <Stack gap="xs" p="lg" pb={0}>
          <Title order={2} size="h4" id="preview-title">
            Preview
          </Title>
          <Text size="sm" c="dimmed">
            {shown}, checked by the same rules as the import (phones read in the campaign’s region).
            {rows.length > 0 &&
              ` ${formatCount(rows.length - invalid)} would be imported, ${formatCount(invalid)} rejected.`}
          </Text>
        </Stack>
        {preview.isError && <ErrorText error={preview.error} title="No preview" />}
        <Stack p="lg" pt="sm">
          {!hasPhone && (
            <Text size="sm" c="dimmed">
              No preview yet: choose the column that holds the phone numbers above, and the first
              rows show here as they would be imported.
            </Text>
          )}
          <DataTable
            columns={previewColumns(job, mapping)}
            rows={rows}
            rowKey={(row) => row.row}
            label="Preview of the first rows"
            minWidth={720}
            striped
            bordered={false}
          />
        </Stack>
      </Paper>

      <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="start-title">
        <Stack gap="sm">
          <Title order={2} size="h4" id="start-title">
            Start the import
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label="Source"
              description="Recorded on every lead and on the import"
              value={source}
              maxLength={100}
              onChange={(event) => setSource(event.currentTarget.value)}
            />
            <TagsInput
              label="Tags"
              description="Applied to every lead (press Enter after each)"
              value={tags}
              onChange={setTags}
              maxTags={50}
            />
          </SimpleGrid>
          <Checkbox
            label="Skip leads whose phone the campaign already has"
            checked={skipDuplicates}
            onChange={(event) => setSkipDuplicates(event.currentTarget.checked)}
          />
          <Alert color="gray" title={`Compliance disclaimer ${DISCLAIMER_VERSION}`}>
            You confirm that every person in this file agreed to be contacted by your organisation,
            that you may lawfully upload their details, and that you will honour opt-outs. The time,
            your user, your IP address and this version are recorded with every import.
          </Alert>
          <Checkbox
            label={`I have permission to contact these people (disclaimer ${DISCLAIMER_VERSION})`}
            checked={acknowledged}
            onChange={(event) => setAcknowledged(event.currentTarget.checked)}
          />
          {start.isError && <ErrorText error={start.error} title="The import did not start" />}
          <Group>
            <Button
              leftSection={<IconPlayerPlay size={16} aria-hidden />}
              disabled={!acknowledged || !hasPhone}
              loading={start.isPending}
              onClick={() =>
                start.mutate({
                  mapping,
                  compliance_acknowledged: true,
                  disclaimer_version: DISCLAIMER_VERSION,
                  source: source.trim() || 'spreadsheet',
                  tags,
                  skip_duplicates: skipDuplicates,
                })
              }
            >
              Start import of {countOf(job.total_rows, 'row')}
            </Button>
            <DiscardButton job={job} />
          </Group>
        </Stack>
      </Paper>
    </Stack>
  );
}

/** Discards the upload with its file, then goes back to the campaign. */
function DiscardButton({ job }: { job: SpreadsheetImport }) {
  const discard = useDiscardSpreadsheetImport(job);
  const navigate = useNavigate();
  return (
    <ConfirmButton
      label="Discard upload"
      title="Discard this upload?"
      message={`${job.file_name} is deleted and nothing is imported. To import it later, upload it again.`}
      confirmLabel="Discard upload"
      leftSection={<IconTrash size={16} aria-hidden />}
      onConfirm={async () => {
        await discard.mutateAsync();
        await navigate(`/campaigns/${job.campaign_id}`);
      }}
      pending={discard.isPending}
      error={discard.error}
    />
  );
}

/**
 * Progress while it runs, then the report: counts, rejected rows, what was recorded.
 * `readAt` is when `job` was read (ms since the epoch): the rate is measured up to then.
 */
function ProgressStep({ job, readAt }: { job: SpreadsheetImport; readAt: number }) {
  const canChange = useCanChange();
  const cancel = useCancelSpreadsheetImport(job);
  const percent = job.total_rows === 0 ? 100 : Math.round((job.rows_read / job.total_rows) * 100);
  const running = job.status === 'running';
  const elapsedSeconds =
    job.started_at === null
      ? 0
      : ((job.finished_at ? Date.parse(job.finished_at) : readAt) - Date.parse(job.started_at)) /
        1000;
  const rate = elapsedSeconds > 0 ? job.rows_read / elapsedSeconds : 0;
  const remaining = rate > 0 ? Math.ceil((job.total_rows - job.rows_read) / rate) : null;

  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="progress-title">
      <Stack gap="md">
        <Group justify="space-between">
          <Title order={2} size="h4" id="progress-title">
            {running ? 'Importing' : 'Import report'}
          </Title>
          <SpreadsheetStatus job={job} />
        </Group>
        <Stack gap={4}>
          <Group justify="space-between" gap="xs">
            <Text size="sm" role="status">
              {formatCount(job.rows_read)} of {countOf(job.total_rows, 'row')} ({percent} %)
            </Text>
            {running && rate > 0 && (
              <Text size="sm" c="dimmed">
                {formatCount(Math.round(rate))} rows/s
                {remaining !== null && `, about ${remaining} s left`}
              </Text>
            )}
          </Group>
          <Progress
            value={percent}
            aria-label="Import progress"
            animated={running}
            color={
              job.status === 'failed' ? 'red' : job.status === 'cancelled' ? 'gray' : undefined
            }
          />
        </Stack>
        <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md">
          <Figure label="New leads">{formatCount(job.new_count)}</Figure>
          <Figure label="Duplicates skipped">{formatCount(job.duplicate_count)}</Figure>
          <Figure label="Rejected">{formatCount(job.invalid_count)}</Figure>
          <Figure label="Chunks committed">{formatCount(job.chunks_imported)}</Figure>
        </SimpleGrid>
        {job.status === 'failed' && (
          <Alert color="red" title="The import stopped">
            {job.error} The chunks committed before stay imported.
          </Alert>
        )}
        {job.status === 'cancelled' && (
          <Alert color="gray" title="Cancelled">
            {job.rows_read === 1
              ? 'The row committed before the cancel stays imported'
              : `The ${countOf(job.rows_read, 'row')} committed before the cancel stay imported`}
            ; the rest of the file was not imported and has been deleted.
          </Alert>
        )}
        <Group gap="sm">
          {job.invalid_count > 0 && (
            <Button
              component="a"
              href={spreadsheetRejectionsCsvUrl(job.id)}
              download
              variant="default"
              leftSection={<IconDownload size={16} aria-hidden />}
            >
              Download rejected rows (CSV)
            </Button>
          )}
          <Button component={Link} to={`/campaigns/${job.campaign_id}`} variant="subtle">
            Back to the campaign
          </Button>
          {running && canChange && (
            <ConfirmButton
              label="Cancel import"
              title="Cancel this import?"
              message="The chunk being imported now is rolled back; the chunks committed before stay imported."
              confirmLabel="Cancel import"
              onConfirm={() => cancel.mutateAsync(undefined)}
              pending={cancel.isPending}
              error={cancel.error}
            />
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {job.started_at && (
            <>
              Started <Timestamp value={job.started_at} />
              {job.finished_at && (
                <>
                  , ended <Timestamp value={job.finished_at} />
                </>
              )}
              . Disclaimer {job.disclaimer_version}. Each chunk of up to 10,000 rows is an import in
              the campaign’s import history.
            </>
          )}
        </Text>
      </Stack>
    </Paper>
  );
}

/** What the not-found page says for a spreadsheet import id the account does not have. */
const SPREADSHEET_IMPORT_NOT_FOUND: NotFoundText = {
  title: 'Spreadsheet import not found',
  description:
    'Your account has no spreadsheet import at this address. It may belong to another account, or the link is mistyped.',
};

/**
 * One spreadsheet import (docs/dashboard.md#spreadsheet-imports): a stepper through upload,
 * column mapping with a validated preview and the compliance acknowledgement, then live
 * progress (cancellable) and the final report with the rejected rows.
 */
export function SpreadsheetImportPage({ importId }: { importId: string }) {
  const canChange = useCanChange();
  const query = useSpreadsheetImport(importId);
  const campaigns = useCampaigns();
  if (!query.isSuccess) {
    return (
      <PageReadFallback
        query={query}
        loading="Loading the import…"
        notFound={SPREADSHEET_IMPORT_NOT_FOUND}
      />
    );
  }
  const job = query.data;
  const campaign = campaigns.data?.find((c) => c.id === job.campaign_id);
  const step = job.status === 'uploaded' ? 1 : job.status === 'running' ? 2 : 3;
  return (
    <>
      <Breadcrumbs mb="xs" aria-label="Breadcrumb">
        <Anchor component={Link} to="/campaigns" size="sm">
          Campaigns
        </Anchor>
        <Anchor component={Link} to={`/campaigns/${job.campaign_id}`} size="sm">
          {campaign?.name ?? `Campaign ${job.campaign_id}`}
        </Anchor>
        <Text size="sm">Spreadsheet import</Text>
      </Breadcrumbs>
      <PageHeader
        title={`Import ${job.file_name}`}
        description={`${job.format.toUpperCase()}, ${formatBytes(job.size_bytes)}, ${countOf(job.total_rows, 'row')}, uploaded by ${job.user.email}.`}
      />
      <DiscardNote job={job} mb="md" />
      <Stepper active={step} size="sm" mb="lg" allowNextStepsSelect={false}>
        <Stepper.Step label="Upload" description="File stored" />
        <Stepper.Step label="Map and review" description="Columns, preview, consent" />
        <Stepper.Step label="Import" description="In the background" />
        <Stepper.Completed>{null}</Stepper.Completed>
      </Stepper>
      {job.status === 'uploaded' ? (
        canChange ? (
          <MappingStep job={job} />
        ) : (
          <Alert color="gray" title="Waiting for an admin">
            An admin of your account maps this file’s columns and starts the import; its progress
            then shows here.
          </Alert>
        )
      ) : (
        <ProgressStep job={job} readAt={query.dataUpdatedAt} />
      )}
      <Text size="xs" c="dimmed" mt="md">
        Spreadsheet import <Code>{job.id}</Code>
      </Text>
    </>
  );
}
