import { Button, Card, Group, NativeSelect, Stack, Text, Title } from '@mantine/core';
import { IconArrowBackUp, IconGitCompare } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { DataTable, type DataColumn } from '../../../components/ui/data-table';
import { ErrorText } from '../../../components/ui/error-text';
import { Timestamp } from '../../../components/ui/timestamp';
import {
  useRestoreTransformation,
  useTransformationVersion,
  type TransformationState,
  type TransformationVersionSummary,
} from '../api/queries';
import { VersionDiff } from './version-diff';

/** The two versions a comparison shows, older first. */
function Comparison({
  endpointId,
  older,
  newer,
}: {
  endpointId: number;
  older: number;
  newer: number;
}) {
  const from = useTransformationVersion(endpointId, older);
  const to = useTransformationVersion(endpointId, newer);
  if (from.isError) return <ErrorText error={from.error} title={`Version ${older} not read`} />;
  if (to.isError) return <ErrorText error={to.error} title={`Version ${newer} not read`} />;
  if (!from.data || !to.data) {
    return (
      <Text size="sm" c="dimmed" role="status">
        Reading the two versions…
      </Text>
    );
  }
  return (
    <VersionDiff
      older={from.data.code}
      newer={to.data.code}
      olderLabel={`v${older}`}
      newerLabel={`v${newer}`}
    />
  );
}

/** Restore one version (admins): it asks first; its code becomes the next version. */
function RestoreButton({
  endpointId,
  version,
  onRestored,
}: {
  endpointId: number;
  version: number;
  onRestored: (state: TransformationState) => void;
}) {
  const restore = useRestoreTransformation(endpointId);
  return (
    <ConfirmButton
      label="Restore"
      title={`Restore version ${version}?`}
      message={`Its code is saved again as a new version and is in force at once: the next deliveries are shaped by it. The versions in between are kept.`}
      confirmLabel={`Restore v${version}`}
      color="blue"
      buttonProps={{ size: 'xs', 'aria-label': `Restore version ${version}` }}
      leftSection={<IconArrowBackUp size={14} aria-hidden />}
      pending={restore.isPending}
      error={restore.error}
      onConfirm={() => restore.mutateAsync(version).then(onRestored)}
    />
  );
}

/**
 * The transformation's **History**: its saved versions, newest first (version, when, who, which
 * version a restore brought back), **Compare** two of them as a line diff, and (admins)
 * **Restore** one, which saves its code as a new version.
 */
export function TransformationHistory({
  endpointId,
  state,
  canChange,
  onRestored,
}: {
  endpointId: number;
  state: TransformationState;
  canChange: boolean;
  onRestored: (state: TransformationState) => void;
}) {
  const versions = state.versions;
  const current = state.current?.version ?? null;
  const [olderChoice, setOlder] = useState<number | null>(null);
  const [newerChoice, setNewer] = useState<number | null>(null);
  const [compared, setCompared] = useState<{ older: number; newer: number } | null>(null);
  const older = olderChoice ?? versions[1]?.version ?? null;
  const newer = newerChoice ?? versions[0]?.version ?? null;
  const options = versions.map((v) => ({ value: String(v.version), label: `v${v.version}` }));

  const columns: Array<DataColumn<TransformationVersionSummary>> = [
    {
      key: 'version',
      header: 'Version',
      rowHeader: true,
      nowrap: true,
      cell: (v) => (
        <>
          v{v.version}
          {v.version === current ? ' (in force)' : ''}
        </>
      ),
    },
    {
      key: 'created_at',
      header: 'Saved',
      nowrap: true,
      cell: (v) => <Timestamp value={v.created_at} />,
    },
    {
      key: 'created_by',
      header: 'By',
      wide: true,
      cell: (v) => (
        <Text span size="sm" style={{ overflowWrap: 'anywhere' }}>
          {v.created_by ?? '—'}
        </Text>
      ),
    },
    {
      key: 'restored_from',
      header: 'Origin',
      cell: (v) => (v.restored_from === null ? 'saved' : `restored from v${v.restored_from}`),
    },
    ...(canChange
      ? [
          {
            key: 'restore',
            header: 'Actions',
            hideHeader: true,
            cell: (v: TransformationVersionSummary) =>
              v.version === current ? null : (
                <RestoreButton
                  endpointId={endpointId}
                  version={v.version}
                  onRestored={onRestored}
                />
              ),
          },
        ]
      : []),
  ];

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="history-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="history-title">
          History
        </Title>
        {versions.length === 0 ? (
          <Text size="sm" c="dimmed">
            No version saved yet.
          </Text>
        ) : (
          <>
            <Text size="sm" c="dimmed">
              Every save and every restore is a new version; the latest 100 are listed, newest
              first.
            </Text>
            <DataTable
              columns={columns}
              rows={versions}
              rowKey={(v) => v.version}
              labelledBy="history-title"
              minWidth={620}
              testId="transformation-versions"
              rowTestId="transformation-version"
            />
          </>
        )}
        {versions.length >= 2 && older !== null && newer !== null && (
          <Stack gap="sm" component="section" aria-labelledby="compare-title">
            <Title order={3} size="h5" id="compare-title">
              Compare versions
            </Title>
            <Group align="flex-end" gap="sm" wrap="wrap">
              <NativeSelect
                label="From version"
                data={options}
                value={String(older)}
                onChange={(event) => setOlder(Number(event.currentTarget.value))}
              />
              <NativeSelect
                label="To version"
                data={options}
                value={String(newer)}
                onChange={(event) => setNewer(Number(event.currentTarget.value))}
              />
              <Button
                variant="default"
                leftSection={<IconGitCompare size={16} aria-hidden />}
                onClick={() => {
                  // Kept as chosen, so that the choices still say what the diff shows once a
                  // restore adds a version.
                  setOlder(older);
                  setNewer(newer);
                  setCompared({ older, newer });
                }}
              >
                Compare
              </Button>
            </Group>
            {compared && (
              <Comparison endpointId={endpointId} older={compared.older} newer={compared.newer} />
            )}
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
