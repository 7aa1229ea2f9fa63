import { Button, Card, Group, Progress, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconReload, IconSearch } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { ErrorText } from '../../../components/ui/error-text';
import { Timestamp } from '../../../components/ui/timestamp';
import { useCanChange } from '../../../lib/roles';
import {
  useCancelRecovery,
  useRecoveries,
  useRecoveryPreview,
  useStartRecovery,
  type Recovery,
} from '../api/recovery-queries';
import { campaignKeys } from '../../../api/campaigns';

/** `Date` as a `datetime-local` value in the viewer's time zone (`2026-11-24T09:30`). */
export function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(
    date.getHours(),
  )}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` value (the viewer's time zone) as an ISO 8601 UTC time, or null if empty or invalid. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const deliveries = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;
const plural = (n: number) => `${n} failed ${n === 1 ? 'delivery' : 'deliveries'}`;

/**
 * What a recovery would send, by kind: "3 failed deliveries", "3 failed deliveries and 2 pending
 * deliveries waiting on a retry", or "2 pending deliveries waiting on a retry".
 */
export function recoveryKinds(failed: number, retrying: number): string {
  const waiting = `${retrying} pending ${retrying === 1 ? 'delivery' : 'deliveries'} waiting on a retry`;
  if (retrying === 0) return plural(failed);
  return failed === 0 ? waiting : `${plural(failed)} and ${waiting}`;
}

/**
 * A recovery's progress: what it covers and since when, "processed of total", a progress bar
 * named `progressLabel` and, for admins while it runs, a cancel button named `cancelLabel`.
 * Used by the bulk recovery card and the replay offer (`replay-offer.tsx`).
 */
export function RecoveryProgress({
  recovery,
  endpointId,
  progressLabel = 'Recovery progress',
  cancelLabel = 'Cancel recovery',
}: {
  recovery: Recovery;
  endpointId: number;
  progressLabel?: string;
  cancelLabel?: string;
}) {
  const canChange = useCanChange();
  const cancel = useCancelRecovery(endpointId);
  const percent =
    recovery.total === 0 ? 100 : Math.round((recovery.processed / recovery.total) * 100);
  const missed = recovery.scope === 'missed';
  const state = {
    running: missed ? 'Replaying' : 'Redelivering',
    done: 'Done',
    cancelled: 'Cancelled',
  }[recovery.status as Recovery['status']];
  return (
    <Stack gap="xs" data-testid="recovery-progress">
      <Group justify="space-between" gap="xs">
        <Text size="sm" fw={600}>
          {state}: {missed ? 'missed' : 'failed'} deliveries since{' '}
          <Timestamp value={recovery.since} />
        </Text>
        <Text size="sm" role="status">
          {recovery.processed} of {recovery.total}
        </Text>
      </Group>
      <Progress
        value={percent}
        aria-label={progressLabel}
        animated={recovery.status === 'running'}
        color={recovery.status === 'cancelled' ? 'gray' : undefined}
      />
      {recovery.status === 'running' && canChange && (
        <Group>
          <Button
            variant="light"
            color="red"
            loading={cancel.isPending}
            onClick={() => cancel.mutate(recovery.id)}
          >
            {cancelLabel}
          </Button>
        </Group>
      )}
      {cancel.isError && <ErrorText error={cancel.error} title="The recovery was not cancelled" />}
    </Stack>
  );
}

/**
 * The endpoint's "Bulk recovery" card (docs/dashboard.md#bulk-recovery): count the failed
 * deliveries since a time and, apart, the pending ones waiting on a retry, redeliver them all
 * in the background (admins; a waiting one's retry moves to now), follow the newest
 * recovery's progress while it runs, and cancel it.
 */
export function BulkRecovery({ endpointId }: { endpointId: number }) {
  const canChange = useCanChange();
  const [input, setInput] = useState(() => toLocalInput(new Date(Date.now() - 86_400_000)));
  const [asked, setAsked] = useState<string | null>(null);
  const preview = useRecoveryPreview(endpointId, asked);
  const recoveries = useRecoveries(endpointId);
  const start = useStartRecovery(endpointId);
  const latest = recoveries.data?.[0];
  // When a recovery ends, the endpoint's health and delivery log have moved on: read them again.
  const queryClient = useQueryClient();
  const wasRunning = useRef(false);
  const running = latest?.status === 'running';
  useEffect(() => {
    if (wasRunning.current && !running) {
      void queryClient.invalidateQueries({ queryKey: campaignKeys.endpoint(endpointId) });
    }
    wasRunning.current = running;
  }, [running, endpointId, queryClient]);
  const since = fromLocalInput(input);
  const failed = preview.data?.failed_count ?? 0;
  const retrying = preview.data?.retrying_count ?? 0;
  const count = failed + retrying;
  const action =
    retrying === 0 ? `Redeliver ${plural(failed)}` : `Redeliver ${deliveries(count)} now`;

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="recovery-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="recovery-title">
          Bulk recovery
        </Title>
        <Text size="sm" c="dimmed">
          Redelivers every failed delivery since a time, in the background, with the same
          webhook-id; each gets one more attempt. Pending deliveries waiting on a retry have that
          retry now.
        </Text>
        <Group align="flex-end" gap="sm" wrap="wrap">
          <TextInput
            type="datetime-local"
            label="Failed since"
            value={input}
            onChange={(event) => {
              setInput(event.currentTarget.value);
              setAsked(null);
            }}
          />
          <Button
            variant="default"
            leftSection={<IconSearch size={16} aria-hidden />}
            disabled={since === null}
            loading={preview.isFetching}
            onClick={() => {
              setAsked(since);
              if (since === asked) void preview.refetch();
            }}
          >
            Preview
          </Button>
        </Group>
        {preview.isError && <ErrorText error={preview.error} title="No preview" />}
        {preview.data && (
          <Stack gap={4}>
            <Text size="sm" role="status" data-testid="recovery-preview">
              {recoveryKinds(failed, retrying)} since <Timestamp value={preview.data.since} />
            </Text>
            {retrying > 0 && (
              <Text size="sm" c="dimmed" data-testid="recovery-preview-kinds">
                Failed: their retries ran out; each gets one more attempt. Waiting on a retry: their
                last attempt failed; their next attempt moves to now, and the rest of their retries
                follow if it fails.
              </Text>
            )}
          </Stack>
        )}
        {canChange && preview.data && count > 0 && (
          <Group>
            <ConfirmButton
              label={action}
              title={`${action}?`}
              message={`Each is sent once more now, in batches, with its webhook-id. ${
                retrying > 0
                  ? 'A failed one that fails again stays failed; one waiting on a retry goes on with its retries.'
                  : 'A delivery that fails again stays failed.'
              }`}
              confirmLabel="Redeliver"
              color="blue"
              leftSection={<IconReload size={16} aria-hidden />}
              pending={start.isPending}
              error={start.error}
              onConfirm={() =>
                start.mutateAsync({ since: preview.data.since }).then(() => setAsked(null))
              }
            />
          </Group>
        )}
        {recoveries.isError && <ErrorText error={recoveries.error} title="No recoveries" />}
        {latest && <RecoveryProgress recovery={latest} endpointId={endpointId} />}
      </Stack>
    </Card>
  );
}
