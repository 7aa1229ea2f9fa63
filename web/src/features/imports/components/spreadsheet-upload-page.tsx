import {
  Alert,
  Anchor,
  Breadcrumbs,
  Button,
  FileInput,
  Group,
  List,
  Paper,
  Progress,
  Stack,
  Stepper,
  Text,
} from '@mantine/core';
import { IconFileSpreadsheet, IconLock, IconUpload } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ErrorText } from '../../../components/ui/error-text';
import { EmptyPanel, PageHeader } from '../../../components/ui/page-states';
import { formatBytes } from '../../../lib/format';
import { useCanChange } from '../../../lib/roles';
import type { Campaign } from '../../../api/types';
import { useUploadSpreadsheet } from '../api/spreadsheet-queries';

/** The largest file the service takes, in MiB (docs/dashboard.md#spreadsheet-imports). */
export const MAX_FILE_MIB = 100;

/**
 * Step 1 of a spreadsheet import (docs/dashboard.md#spreadsheet-imports): pick a CSV or XLSX
 * file and stream it to the service, with the bytes sent shown; then on to the import's page
 * for the mapping. A viewer gets no form: only admins import.
 */
export function SpreadsheetUploadPage({ campaign }: { campaign: Campaign }) {
  const canChange = useCanChange();
  const campaignId = campaign.id;
  const navigate = useNavigate();
  const [file, setFile] = useState<File | null>(null);
  const [sent, setSent] = useState<{ sent: number; total: number } | null>(null);
  const upload = useUploadSpreadsheet(campaignId);
  const tooLarge = file !== null && file.size > MAX_FILE_MIB * 1024 * 1024;
  const percent = sent && sent.total > 0 ? Math.round((sent.sent / sent.total) * 100) : 0;

  return (
    <>
      <Breadcrumbs mb="xs" aria-label="Breadcrumb">
        <Anchor component={Link} to="/campaigns" size="sm">
          Campaigns
        </Anchor>
        <Anchor component={Link} to={`/campaigns/${campaignId}`} size="sm">
          {campaign.name}
        </Anchor>
        <Text size="sm">Import a spreadsheet</Text>
      </Breadcrumbs>
      <PageHeader
        title="Import a spreadsheet"
        description="Leads from a CSV or Excel file, validated like an API upload, imported in the background."
      />
      <Stepper active={0} size="sm" mb="lg" allowNextStepsSelect={false}>
        <Stepper.Step label="Upload" description="CSV or XLSX" />
        <Stepper.Step label="Map and review" description="Columns, preview, consent" />
        <Stepper.Step label="Import" description="In the background" />
      </Stepper>
      {!canChange ? (
        <EmptyPanel
          title="Only an admin can import a spreadsheet"
          description="Your role in this account is viewer: you can follow the imports on the campaign’s page, but not start one."
          icon={<IconLock size={28} aria-hidden />}
        >
          <Button component={Link} to={`/campaigns/${campaignId}`} variant="light">
            Back to {campaign.name}
          </Button>
        </EmptyPanel>
      ) : (
        <Paper withBorder radius="md" p="lg">
          <Stack gap="md">
            <FileInput
              label="Spreadsheet file"
              description={`A .csv (UTF-8; comma, semicolon or tab separated) or .xlsx file with a header row, up to ${MAX_FILE_MIB} MiB. Only the first worksheet is read.`}
              placeholder="Choose a file"
              accept=".csv,.tsv,.xlsx,.xlsm,text/csv,text/tab-separated-values,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
              leftSection={<IconFileSpreadsheet size={16} aria-hidden />}
              value={file}
              onChange={(picked) => {
                setFile(picked);
                setSent(null);
                upload.reset();
              }}
              clearable
              error={tooLarge ? `This file is larger than ${MAX_FILE_MIB} MiB` : undefined}
            />
            {file && (
              <Text size="sm" c="dimmed">
                {file.name}, {formatBytes(file.size)}
              </Text>
            )}
            {sent && !upload.isError && (
              <Stack gap={4}>
                <Text size="sm" role="status">
                  {percent < 100
                    ? `Uploading… ${percent} %`
                    : 'Uploaded; reading the file through…'}
                </Text>
                <Progress
                  value={percent}
                  aria-label="Upload progress"
                  animated={upload.isPending}
                />
              </Stack>
            )}
            {upload.isError && <ErrorText error={upload.error} title="The file was not taken" />}
            <Group>
              <Button
                leftSection={<IconUpload size={16} aria-hidden />}
                disabled={file === null || tooLarge}
                loading={upload.isPending}
                onClick={() => {
                  if (!file) return;
                  setSent({ sent: 0, total: file.size });
                  upload.mutate(
                    { file, onProgress: (bytes, total) => setSent({ sent: bytes, total }) },
                    {
                      onSuccess: (job) => void navigate(`/spreadsheet-imports/${job.id}`),
                      // A refused file leaves no progress behind, only why it was refused.
                      onError: () => setSent(null),
                    },
                  );
                }}
              >
                Upload file
              </Button>
            </Group>
            <Alert color="gray" title="What happens next">
              <List size="sm" spacing={2}>
                <List.Item>
                  The file is stored and read once: its header row and first rows.
                </List.Item>
                <List.Item>
                  You map its columns to lead fields (common names are matched for you) and see the
                  first rows validated.
                </List.Item>
                <List.Item>
                  After you acknowledge the compliance disclaimer the import runs in the background,
                  10,000 rows at a time; you can leave the page and come back.
                </List.Item>
              </List>
            </Alert>
          </Stack>
        </Paper>
      )}
    </>
  );
}
