import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconHistory, IconPlayerPlay } from '@tabler/icons-react';
import { useState } from 'react';
import { ErrorText } from '../../../components/ui/error-text';
import { Timestamp } from '../../../components/ui/timestamp';
import { useCanChange } from '../../../lib/roles';
import {
  useRecoveries,
  useRecoveryPreview,
  useStartRecovery,
  type Recovery,
} from '../api/recovery-queries';
import type { Endpoint } from '../../../api/types';
import { RecoveryProgress } from './bulk-recovery';

/** Where a dismissed offer is remembered, in this browser: per endpoint and disabled period. */
export function dismissedKey(endpointId: number, since: string): string {
  return `campaign-api:replay-offer-dismissed:${endpointId}:${since}`;
}

function isDismissed(key: string): boolean {
  try {
    return window.localStorage.getItem(key) !== null;
  } catch {
    return false; // storage refused (a private window's settings): the offer shows
  }
}

function rememberDismissed(key: string): void {
  try {
    window.localStorage.setItem(key, new Date().toISOString());
  } catch {
    // Not remembered: dismissed for as long as the page stays open.
  }
}

const deliveries = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;
const missed = (n: number) => `${n} missed ${n === 1 ? 'delivery' : 'deliveries'}`;

/** Why it had been disabled, to end "The endpoint had been disabled". */
const REASON_TEXT: Record<NonNullable<Endpoint['last_disabled_reason']>, string> = {
  manual: ' by an admin',
  gone: ' automatically: it answered 410 Gone',
  auto: ' automatically: its deliveries kept failing',
};

/** Whether two ISO 8601 times are the same instant. */
const sameInstant = (a: string, b: string) => Date.parse(a) === Date.parse(b);

/**
 * The offer to replay what an endpoint missed while it was disabled
 * (docs/dashboard.md#replaying-missed-deliveries), for admins, on the endpoint's page once it is
 * enabled again: the count first (the preview since `last_disabled_at`: skipped and dropped
 * deliveries, and failed ones), then **Replay N missed deliveries**, which starts a recovery
 * with the scope `missed`, and its live progress. **Dismiss** hides it in this browser for that
 * disabled period. Nothing shows when nothing was missed, or when the period's replay ran
 * before (it is then in the bulk recovery card's progress).
 */
export function ReplayOffer({ endpoint }: { endpoint: Endpoint }) {
  const canChange = useCanChange();
  const since = endpoint.is_enabled ? endpoint.last_disabled_at : null;
  if (!canChange || !since) return null;
  return (
    <Offer
      key={`${endpoint.id}:${since}`}
      endpointId={endpoint.id}
      since={since}
      reason={endpoint.last_disabled_reason}
    />
  );
}

function Offer({
  endpointId,
  since,
  reason,
}: {
  endpointId: number;
  since: string;
  reason: Endpoint['last_disabled_reason'];
}) {
  const key = dismissedKey(endpointId, since);
  const [dismissed, setDismissed] = useState(() => isDismissed(key));
  // The replay started from this offer, followed until the offer is dismissed.
  const [startedId, setStartedId] = useState<number | null>(null);
  const preview = useRecoveryPreview(endpointId, dismissed ? null : since);
  const recoveries = useRecoveries(endpointId);
  const start = useStartRecovery(endpointId);
  if (dismissed) return null;

  const dismiss = () => {
    rememberDismissed(key);
    setDismissed(true);
  };
  const ofThisPeriod = (r: Recovery) => r.scope === 'missed' && sameInstant(r.since, since);
  const replay =
    startedId !== null
      ? (recoveries.data?.find((r) => r.id === startedId) ?? start.data)
      : recoveries.data?.find((r) => ofThisPeriod(r) && r.status === 'running');
  // Replayed before this page was opened: nothing more to offer.
  if (!replay && recoveries.data?.some(ofThisPeriod)) return null;
  // The count first: nothing shows before it is known, nor when nothing was missed.
  if (!replay && !preview.isError) {
    if (!preview.data || recoveries.isPending) return null;
    const { failed_count, retrying_count, skipped_count } = preview.data;
    if (failed_count + retrying_count + skipped_count === 0) return null;
  }
  const failed = preview.data?.failed_count ?? 0;
  const retrying = preview.data?.retrying_count ?? 0;
  const skipped = preview.data?.skipped_count ?? 0;
  const count = failed + retrying + skipped;
  const sinceThen = [
    skipped > 0 && `${deliveries(skipped)} ${skipped === 1 ? 'was' : 'were'} skipped or dropped`,
    failed > 0 && `${deliveries(failed)} failed`,
    retrying > 0 && `${deliveries(retrying)} ${retrying === 1 ? 'is' : 'are'} waiting on a retry`,
  ]
    .filter(Boolean)
    .join(' and ');
  // Another recovery of the endpoint was running: the start answered it, and started nothing.
  const busy = start.data && start.data.scope !== 'missed' ? start.data : null;

  return (
    <Alert
      role="region"
      color="blue"
      variant="light"
      radius="md"
      title="Replay missed deliveries"
      icon={<IconHistory size={18} aria-hidden />}
      data-testid="replay-offer"
    >
      <Stack gap="sm">
        {replay ? (
          <RecoveryProgress
            recovery={replay}
            endpointId={endpointId}
            progressLabel="Replay progress"
            cancelLabel="Cancel replay"
          />
        ) : preview.isError ? (
          <ErrorText error={preview.error} title="The missed deliveries could not be counted" />
        ) : (
          <>
            <Text size="sm" fw={600} data-testid="replay-count">
              Replay {missed(count)} since <Timestamp value={since} />
            </Text>
            <Text size="sm">
              The endpoint had been disabled{reason ? REASON_TEXT[reason] : ''}. Since then{' '}
              {sinceThen}. The replay sends each again in the background with its webhook-id:
              skipped and dropped ones get their retry schedule, failed ones one more attempt.
            </Text>
            {busy && (
              <Text size="sm" role="status">
                A bulk recovery of this endpoint is running: replay once it has finished.
              </Text>
            )}
            {start.isError && <ErrorText error={start.error} title="The replay did not start" />}
          </>
        )}
        <Group gap="sm">
          {!replay && !preview.isError && (
            <Button
              leftSection={<IconPlayerPlay size={16} aria-hidden />}
              loading={start.isPending}
              onClick={() =>
                start.mutate(
                  { since, scope: 'missed' },
                  {
                    onSuccess: (recovery) => {
                      if (recovery.scope === 'missed') setStartedId(recovery.id);
                    },
                  },
                )
              }
            >
              Replay {missed(count)}
            </Button>
          )}
          <Button variant="default" onClick={dismiss}>
            Dismiss
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
