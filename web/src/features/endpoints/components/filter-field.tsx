import {
  Badge,
  Button,
  Fieldset,
  Group,
  Stack,
  Text,
  Textarea,
  type MantineColor,
} from '@mantine/core';
import { lazy, Suspense, useId } from 'react';
import { isApiError } from '../../../lib/api-errors';
import { ErrorText } from '../../../components/ui/error-text';
import { Timestamp } from '../../../components/ui/timestamp';
import type { FilterPreviewItem } from '../../../api/types';
import { usePreviewFilter } from '../api/queries';

// CodeMirror is loaded only when a form shows the filter field (its own chunk, out of the
// initial bundle's budget).
const CodeEditor = lazy(() => import('../../../components/ui/code-editor'));

/**
 * The service's refusal when it is about the filter (`filter has an error at line 1, column 6
 * …`): said at the field. Null for any other error.
 */
export function filterFieldError(error: unknown): string | null {
  return isApiError(error, 422) && /^filter\b/.test(error.message) ? error.message : null;
}

/** What the form sends of the filter: null when blank (every event of the subscribed types). */
export function toFilterInput(typed: string | undefined): { filter?: string | null } {
  if (typed === undefined) return {};
  return { filter: typed.trim() === '' ? null : typed.trim() };
}

const RESULT: Record<FilterPreviewItem['result'], { label: string; color: MantineColor }> = {
  match: { label: 'Match', color: 'green' },
  no_match: { label: 'No match', color: 'gray' },
  error: { label: 'Error: no match', color: 'red' },
};

function PreviewRow({ item }: { item: FilterPreviewItem }) {
  const { label, color } = RESULT[item.result];
  return (
    <Group component="li" gap="xs" wrap="nowrap" align="flex-start" data-result={item.result}>
      <Badge color={color} variant="light" miw={92} style={{ flexShrink: 0 }}>
        {label}
      </Badge>
      <Stack gap={0} style={{ minWidth: 0 }}>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {item.source === 'example' ? 'Example' : 'Event'}{' '}
          <Text span ff="monospace" size="sm">
            {item.type}
          </Text>
          {item.recorded_at && (
            <Text span size="xs" c="dimmed">
              {' '}
              · <Timestamp value={item.recorded_at} />
            </Text>
          )}
        </Text>
        {item.error && (
          <Text size="xs" c="red" style={{ overflowWrap: 'anywhere' }}>
            {item.error}
          </Text>
        )}
      </Stack>
    </Group>
  );
}

/**
 * The endpoint form's **Filter** (docs/webhooks.md#payload-filters): a CEL expression in a code
 * editor (CodeMirror, loaded on demand; a plain text area until then), and **Try it**, which
 * evaluates it on each subscribed type's example and the campaign's 50 latest events of those
 * types and lists Match / No match for each, sending nothing. The service's refusal (line,
 * column and problem) is shown at the field.
 */
export function FilterField({
  campaignId,
  value,
  events,
  onChange,
  error,
}: {
  campaignId: number;
  value: string;
  events: string[];
  onChange: (value: string) => void;
  /** The save's refusal about the filter, if any. */
  error: string | null;
}) {
  const descriptionId = useId();
  const errorId = useId();
  const preview = usePreviewFilter(campaignId);
  const previewError = filterFieldError(preview.error);
  const shownError = previewError ?? error;
  const describedBy = [descriptionId, shownError ? errorId : null].filter(Boolean).join(' ');
  const tryIt = () => {
    if (events.length > 0) preview.mutate({ filter: value, events });
  };

  return (
    <Fieldset legend="Filter" radius="md">
      <Stack gap="xs">
        <Text size="sm" c="dimmed" id={descriptionId}>
          Optional. A CEL expression over the event (<code>type</code>, <code>timestamp</code>,{' '}
          <code>data</code>): only events it matches are sent, e.g.{' '}
          <code>data.source == "facebook" &amp;&amp; "vip" in data.tags</code>. Leave it empty to
          send every event of the chosen types.
        </Text>
        <Suspense
          fallback={
            <Textarea
              aria-label="Filter"
              aria-describedby={describedBy}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              rows={3}
              value={value}
              onChange={(event) => onChange(event.currentTarget.value)}
            />
          }
        >
          <CodeEditor
            value={value}
            onChange={onChange}
            ariaLabel="Filter"
            describedBy={describedBy}
            invalid={shownError !== null}
            placeholder='type == "lead.created" && data.source == "facebook"'
            onSubmit={tryIt}
          />
        </Suspense>
        {shownError && (
          <Text size="sm" c="red" id={errorId} role="alert" style={{ overflowWrap: 'anywhere' }}>
            {shownError}
          </Text>
        )}
        <Group gap="sm">
          <Button
            variant="default"
            size="xs"
            onClick={tryIt}
            loading={preview.isPending}
            disabled={events.length === 0}
          >
            Try it
          </Button>
          <Text size="xs" c="dimmed">
            {events.length === 0
              ? 'Choose an event type to try the filter.'
              : 'On each type’s example and the 50 latest events; nothing is sent.'}
          </Text>
        </Group>
        {preview.error && previewError === null && (
          <ErrorText error={preview.error} title="The filter could not be tried" />
        )}
        {preview.isSuccess && !preview.isPending && (
          <Stack gap={4} aria-label="Filter results" role="region">
            <Text size="sm" fw={500}>
              {preview.data.items.filter((i) => i.result === 'match').length} of{' '}
              {preview.data.items.length} would be sent
            </Text>
            <Stack component="ul" gap={6} m={0} p={0} style={{ listStyle: 'none' }}>
              {preview.data.items.map((item, i) => (
                <PreviewRow key={item.event_id ?? `example-${item.type}-${i}`} item={item} />
              ))}
            </Stack>
          </Stack>
        )}
      </Stack>
    </Fieldset>
  );
}
