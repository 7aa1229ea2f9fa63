import {
  Alert,
  Anchor,
  Breadcrumbs,
  Button,
  Card,
  Group,
  NativeSelect,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import {
  IconDeviceFloppy,
  IconHistory,
  IconPlayerPlay,
  IconPlayerStop,
  IconReload,
} from '@tabler/icons-react';
import { lazy, Suspense, useId, useState } from 'react';
import { Link } from 'react-router';
import { useCampaigns, useEndpoint } from '../../../api/campaigns';
import type { Endpoint } from '../../../api/types';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { ErrorText } from '../../../components/ui/error-text';
import { PageHeader, PageReadFallback } from '../../../components/ui/page-states';
import { Timestamp } from '../../../components/ui/timestamp';
import { isApiError } from '../../../lib/api-errors';
import { endpointName } from '../../../lib/format';
import { ENDPOINT_NOT_FOUND } from '../../../lib/not-found';
import { useCanChange } from '../../../lib/roles';
import {
  useClearTransformation,
  useRecentDeliveries,
  useRetryTransformationErrors,
  useRunTransformation,
  useSaveTransformation,
  useTransformation,
  useTransformationFailures,
  type TransformationState,
  type TrialEventType,
} from '../api/queries';
import { positionIn, positionText, STARTER_CODE } from '../lib/code-position';
import type { CodeMark } from './transformation-editor';
import { TransformationHistory } from './transformation-history';
import { TransformationResult } from './transformation-result';

// CodeMirror and its JavaScript language load with this page only (their own chunk).
const TransformationEditor = lazy(() => import('./transformation-editor'));

/** How far back "Retry deliveries that failed on the transformation" reaches, in ms. */
const RETRY_WINDOW_MS = 30 * 86_400_000;

const EDITOR_NAME = 'Transformation code';

/** The refusal of a save, when it is about the code (a 422): its message and where it points. */
function saveRefusal(error: unknown): { message: string; mark: CodeMark | null } | null {
  if (!isApiError(error, 422)) return null;
  const at = positionIn(error.message);
  return {
    message: error.message,
    mark: at ? { line: at.line, column: at.column, message: error.message } : null,
  };
}

/** "Version 3 is in force, saved … by …", or that none is. */
export function InForceLine({ state }: { state: TransformationState }) {
  const current = state.current;
  if (!current) {
    return (
      <Text size="sm" data-testid="transformation-in-force">
        No transformation is in force: requests are sent as the events are.
      </Text>
    );
  }
  return (
    <Text size="sm" data-testid="transformation-in-force">
      Version {current.version} is in force, saved <Timestamp value={current.created_at} />
      {current.created_by ? ` by ${current.created_by}` : ''}
      {current.restored_from !== null ? ` (restored from v${current.restored_from})` : ''}.
    </Text>
  );
}

/** After a save: the offer to send again the deliveries that failed on the transformation. */
function RetryFailures({ endpointId }: { endpointId: number }) {
  const failures = useTransformationFailures(endpointId, true);
  const retry = useRetryTransformationErrors(endpointId);
  if (retry.data) {
    return (
      <Text size="sm" role="status" data-testid="transformation-retry-started">
        Sending again {retry.data.total} {retry.data.total === 1 ? 'delivery' : 'deliveries'} that
        failed on the transformation since <Timestamp value={retry.data.since} />, in the
        background. The endpoint’s page shows the progress.
      </Text>
    );
  }
  if (!failures.data) return null;
  const n = failures.data;
  return (
    <Stack gap="xs" align="flex-start">
      <Text size="sm">
        {n} recent {n === 1 ? 'delivery' : 'deliveries'} failed on the transformation; they are not
        retried on the schedule.
      </Text>
      <ConfirmButton
        label="Retry deliveries that failed on the transformation"
        title="Send them again with the code in force?"
        message="Every delivery of the last 30 days that failed on the transformation is sent again, in the background, shaped by the version now in force."
        confirmLabel="Send them again"
        color="blue"
        leftSection={<IconReload size={16} aria-hidden />}
        pending={retry.isPending}
        error={retry.error}
        onConfirm={() => retry.mutateAsync(new Date(Date.now() - RETRY_WINDOW_MS).toISOString())}
      />
    </Stack>
  );
}

/** The "Run on…" controls: an example of one of the endpoint's types, or a past delivery. */
function RunControls({
  endpoint,
  pending,
  onRun,
}: {
  endpoint: Endpoint;
  /** Which run is under way, if any. */
  pending: 'example' | 'delivery' | null;
  onRun: (input: { event_type?: TrialEventType; delivery_id?: number }) => void;
}) {
  const deliveries = useRecentDeliveries(endpoint.id);
  const types = endpoint.subscribed_events;
  const [eventType, setEventType] = useState<string>(types[0] ?? 'lead.created');
  const [deliveryChoice, setDelivery] = useState('');
  const items = deliveries.data ?? [];
  const delivery = deliveryChoice || (items[0] ? String(items[0].delivery_id) : '');
  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <NativeSelect
          label="Example event type"
          value={eventType}
          onChange={(event) => setEventType(event.currentTarget.value)}
          data={types.length > 0 ? types : ['lead.created']}
        />
        <Button
          variant="light"
          leftSection={<IconPlayerPlay size={16} aria-hidden />}
          loading={pending === 'example'}
          disabled={pending === 'delivery'}
          onClick={() => onRun({ event_type: eventType as TrialEventType })}
        >
          Run on the example
        </Button>
      </Group>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <NativeSelect
          label="Past delivery"
          value={delivery}
          onChange={(event) => setDelivery(event.currentTarget.value)}
          disabled={items.length === 0}
          style={{ minWidth: 0, maxWidth: '100%' }}
          data={
            items.length === 0
              ? [{ value: '', label: deliveries.isPending ? 'Loading…' : 'No delivery yet' }]
              : items.map((a) => ({
                  value: String(a.delivery_id),
                  label: `${new Date(a.attempted_at).toLocaleString()} · ${a.event_type ?? 'event'} · delivery ${a.delivery_id}`,
                }))
          }
        />
        <Button
          variant="light"
          leftSection={<IconHistory size={16} aria-hidden />}
          loading={pending === 'delivery'}
          disabled={delivery === '' || pending === 'example'}
          onClick={() => onRun({ delivery_id: Number(delivery) })}
        >
          Run on a past delivery
        </Button>
      </Group>
      {deliveries.isError && <ErrorText error={deliveries.error} title="No past deliveries" />}
    </Stack>
  );
}

/**
 * The editor and its actions, built once the state is read: it starts with the version in
 * force's code, or the starter code.
 */
function Workbench({
  endpoint,
  state,
  canChange,
}: {
  endpoint: Endpoint;
  state: TransformationState;
  canChange: boolean;
}) {
  const [code, setCode] = useState(state.current?.code ?? STARTER_CODE);
  const [mark, setMark] = useState<CodeMark | null>(null);
  const [saved, setSaved] = useState<number | null>(null);
  const [ranCode, setRanCode] = useState<string | null>(null);
  const descriptionId = useId();
  const errorId = useId();
  const run = useRunTransformation(endpoint.id);
  const save = useSaveTransformation(endpoint.id);
  const clear = useClearTransformation(endpoint.id);
  const refusal = saveRefusal(save.error);
  const unsaved = code !== (state.current?.code ?? null);
  const describedBy = [descriptionId, refusal ? errorId : null].filter(Boolean).join(' ');

  const edit = (value: string) => {
    setCode(value);
    setMark(null);
    setSaved(null);
  };
  const runOn = (input: { event_type?: TrialEventType; delivery_id?: number }) => {
    save.reset();
    setRanCode(code);
    run.mutate(
      { code, ...input },
      {
        onSuccess: (trial) => {
          const error = trial.error;
          setMark(
            error && error.line !== null
              ? {
                  line: error.line,
                  column: error.column,
                  message: `${error.message} (${positionText(error.line, error.column)})`,
                }
              : null,
          );
        },
      },
    );
  };
  const saveCode = () => {
    save.mutate(code, {
      onSuccess: (next) => {
        setMark(null);
        setSaved(next.current?.version ?? null);
      },
      onError: (error) => setMark(saveRefusal(error)?.mark ?? null),
    });
  };
  const restored = (next: TransformationState) => {
    if (next.current) setCode(next.current.code);
    setMark(null);
    setSaved(null);
    save.reset();
  };

  return (
    <>
      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="code-title">
        <Stack gap="sm">
          <Group justify="space-between" gap="xs">
            <Title order={2} size="h4" id="code-title">
              Code
            </Title>
            {canChange && unsaved && (
              <Text size="xs" c="dimmed" data-testid="unsaved">
                Not saved
              </Text>
            )}
          </Group>
          <Text size="sm" c="dimmed" id={descriptionId}>
            JavaScript defining <code>handler(webhook)</code>: it gets the request about to be sent
            (<code>method</code>, <code>url</code>, <code>headers</code>, <code>payload</code>,{' '}
            <code>event_type</code>) and returns it changed, or <code>null</code> to send nothing.
            It runs before each delivery is signed. Tab leaves the editor; Ctrl+Enter runs it on the
            example.
          </Text>
          <Suspense
            fallback={
              <Textarea
                aria-label={EDITOR_NAME}
                aria-describedby={describedBy}
                readOnly={!canChange}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                rows={8}
                value={code}
                onChange={(event) => edit(event.currentTarget.value)}
              />
            }
          >
            <TransformationEditor
              value={code}
              onChange={edit}
              ariaLabel={EDITOR_NAME}
              describedBy={describedBy}
              mark={mark}
              readOnly={!canChange}
              onSubmit={
                canChange
                  ? () =>
                      runOn({
                        event_type: (endpoint.subscribed_events[0] ??
                          'lead.created') as TrialEventType,
                      })
                  : undefined
              }
            />
          </Suspense>
          {refusal && (
            <Text
              size="sm"
              c="red"
              id={errorId}
              role="alert"
              style={{ overflowWrap: 'anywhere' }}
              data-testid="save-error"
            >
              Not saved: {refusal.message}
            </Text>
          )}
          {save.isError && !refusal && <ErrorText error={save.error} title="Not saved" />}
          {canChange && (
            <>
              <RunControls
                endpoint={endpoint}
                pending={
                  !run.isPending
                    ? null
                    : run.variables?.delivery_id === undefined
                      ? 'example'
                      : 'delivery'
                }
                onRun={runOn}
              />
              <Group gap="sm" wrap="wrap">
                <Button
                  leftSection={<IconDeviceFloppy size={16} aria-hidden />}
                  loading={save.isPending}
                  onClick={saveCode}
                >
                  Save as new version
                </Button>
                {state.current && (
                  <ConfirmButton
                    label="Stop transforming"
                    title="Stop transforming?"
                    message="From the next delivery on, requests are sent as the events are, without any code. The saved versions are kept: restore one to start again."
                    confirmLabel="Stop transforming"
                    leftSection={<IconPlayerStop size={16} aria-hidden />}
                    pending={clear.isPending}
                    error={clear.error}
                    onConfirm={() => clear.mutateAsync().then(() => setSaved(null))}
                  />
                )}
              </Group>
              {saved !== null && (
                <Alert
                  color="green"
                  variant="light"
                  role="status"
                  title={`Saved as version ${saved}`}
                >
                  <Stack gap="xs">
                    <Text size="sm">It is in force now: the next deliveries are shaped by it.</Text>
                    <RetryFailures endpointId={endpoint.id} />
                  </Stack>
                </Alert>
              )}
            </>
          )}
        </Stack>
      </Card>
      {canChange && (
        <TransformationResult
          trial={run.data}
          error={run.error}
          stale={run.data !== undefined && ranCode !== code}
        />
      )}
      <TransformationHistory
        endpointId={endpoint.id}
        state={state}
        canChange={canChange}
        onRestored={restored}
      />
    </>
  );
}

/**
 * `/dashboard/endpoints/:endpointId/transformation` (docs/dashboard.md#transformations): the
 * endpoint's transformation, JavaScript that reshapes each request before it is signed and sent.
 * Admins edit it, run it on an example or a past delivery (the **Result** shows the exact request,
 * nothing is sent), save it as a new version, stop it, compare and restore versions; viewers
 * read the code and the history.
 */
export function TransformationPage({ endpointId }: { endpointId: number }) {
  const canChange = useCanChange();
  const endpoint = useEndpoint(endpointId);
  const campaigns = useCampaigns();
  const state = useTransformation(endpointId);
  if (!endpoint.isSuccess) {
    return (
      <PageReadFallback
        query={endpoint}
        loading="Loading the endpoint…"
        notFound={ENDPOINT_NOT_FOUND}
      />
    );
  }
  const data = endpoint.data;
  const name = endpointName(data);
  const campaignName = campaigns.data?.find((c) => c.id === data.campaign_id)?.name;
  return (
    <Stack gap="lg" style={{ minWidth: 0 }}>
      <div>
        <Breadcrumbs mb="xs" aria-label="Breadcrumb">
          <Anchor component={Link} to="/campaigns" size="sm">
            Campaigns
          </Anchor>
          <Anchor component={Link} to={`/campaigns/${data.campaign_id}`} size="sm">
            {campaignName ?? 'Campaign'}
          </Anchor>
          <Anchor component={Link} to={`/endpoints/${data.id}`} size="sm">
            {name}
          </Anchor>
          <Text size="sm">Transformation</Text>
        </Breadcrumbs>
        <PageHeader
          title={`${name}: transformation`}
          description={
            <>
              Code that reshapes each request to{' '}
              <span style={{ overflowWrap: 'anywhere' }}>{data.url}</span> before it is signed and
              sent.
            </>
          }
        />
        {state.isSuccess && <InForceLine state={state.data} />}
      </div>
      {state.isSuccess ? (
        <Workbench endpoint={data} state={state.data} canChange={canChange} />
      ) : (
        <PageReadFallback
          query={state}
          loading="Loading the transformation…"
          notFound={ENDPOINT_NOT_FOUND}
        />
      )}
    </Stack>
  );
}
