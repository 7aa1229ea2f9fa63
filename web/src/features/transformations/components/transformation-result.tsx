import { Badge, Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import { DataTable, type DataColumn } from '../../../components/ui/data-table';
import { ErrorText } from '../../../components/ui/error-text';
import { formatDuration } from '../../../lib/format';
import type { TransformationTrial } from '../api/queries';
import { positionText, prettyBody } from '../lib/code-position';

type Header = { name: string; value: string };

const HEADER_COLUMNS: Array<DataColumn<Header>> = [
  {
    key: 'name',
    header: 'Header',
    rowHeader: true,
    cell: (h) => (
      <Text span ff="monospace" size="sm" style={{ overflowWrap: 'anywhere' }}>
        {h.name}
      </Text>
    ),
  },
  {
    key: 'value',
    header: 'Value',
    wide: true,
    cell: (h) => (
      <Text span ff="monospace" size="sm" style={{ overflowWrap: 'anywhere' }}>
        {h.value}
      </Text>
    ),
  },
];

/** Where a trial ran: "the example of lead.created" or "delivery 42 (lead.created)". */
function sourceText(trial: TransformationTrial): string {
  const { source } = trial;
  const on =
    source.kind === 'example'
      ? `the example of ${source.event_type}`
      : `delivery ${source.delivery_id} (${source.event_type})`;
  const code = trial.version === 0 ? 'the code in the editor' : `version ${trial.version}`;
  return `Ran ${code} on ${on} in ${formatDuration(trial.duration_ms)}. Nothing was sent.`;
}

/** The request a trial made: method and URL, its headers, its body (pretty when JSON). */
function RequestShown({ request }: { request: NonNullable<TransformationTrial['request']> }) {
  const headers = Object.entries(request.headers).map(([name, value]) => ({ name, value }));
  const shown = prettyBody(request.body);
  return (
    <Stack gap="sm" data-outcome="request">
      <Text size="sm" fw={500}>
        This request would be sent:
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Badge variant="filled" style={{ flexShrink: 0 }} data-testid="result-method">
          {request.method}
        </Badge>
        <Text
          ff="monospace"
          size="sm"
          style={{ overflowWrap: 'anywhere', minWidth: 0 }}
          data-testid="result-url"
        >
          {request.url}
        </Text>
      </Group>
      <Title order={3} size="h6">
        Headers
      </Title>
      <DataTable
        columns={HEADER_COLUMNS}
        rows={headers}
        rowKey={(h) => h.name}
        label="Request headers"
        minWidth={480}
        testId="result-headers"
      />
      <Title order={3} size="h6">
        Body{shown.json ? ' (JSON, pretty-printed)' : ''}
      </Title>
      <Code
        block
        fz="xs"
        data-testid="result-body"
        style={{
          whiteSpace: 'pre-wrap',
          overflowWrap: 'anywhere',
          maxHeight: 480,
          overflowY: 'auto',
        }}
      >
        {shown.text || '(empty)'}
      </Code>
    </Stack>
  );
}

/**
 * The **Result** region: what the last "Run on…" made, exactly as it would be sent (method,
 * URL, headers with signatures cut and secret values redacted, body), or that the code cancelled
 * it, or its error with the line and column (also marked in the editor). Before any run, a line
 * saying how to get one.
 */
export function TransformationResult({
  trial,
  error,
  stale,
}: {
  trial: TransformationTrial | undefined;
  error: unknown;
  /** The code in the editor changed since this run. */
  stale: boolean;
}) {
  return (
    <Card
      withBorder
      radius="md"
      padding="lg"
      component="section"
      role="region"
      aria-label="Result"
      aria-live="polite"
      style={{ minWidth: 0 }}
    >
      <Stack gap="sm">
        <Title order={2} size="h4">
          Result
        </Title>
        {error ? (
          <ErrorText error={error} title="The code could not be run" />
        ) : !trial ? (
          <Text size="sm" c="dimmed">
            Run the code on an example or a past delivery to see the request it would send. Nothing
            is sent.
          </Text>
        ) : (
          <>
            <Text size="xs" c="dimmed" data-testid="result-source">
              {sourceText(trial)}
            </Text>
            {stale && (
              <Text size="xs" c="orange.8" data-testid="result-stale">
                The code in the editor has changed since this run.
              </Text>
            )}
            {trial.outcome === 'request' && trial.request && (
              <RequestShown request={trial.request} />
            )}
            {trial.outcome === 'cancelled' && (
              <Text size="sm" fw={500} data-outcome="cancelled">
                Cancelled: the code returned null; nothing would be sent
              </Text>
            )}
            {trial.outcome === 'error' && trial.error && (
              <Stack gap={4} data-outcome="error">
                <Text size="sm" fw={600} c="red">
                  Error ({trial.error.kind})
                  {trial.error.line !== null &&
                    ` at ${positionText(trial.error.line, trial.error.column)}`}
                </Text>
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {trial.error.message}
                </Text>
                <Text size="xs" c="dimmed">
                  Nothing would be sent: the delivery would fail, and it is not retried on the
                  schedule.
                </Text>
              </Stack>
            )}
          </>
        )}
      </Stack>
    </Card>
  );
}
