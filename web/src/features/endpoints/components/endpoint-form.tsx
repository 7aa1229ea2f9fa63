import {
  Button,
  Checkbox,
  Code,
  Fieldset,
  Group,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useId, useState, type FormEvent } from 'react';
import { DisclosureToggle } from '../../../components/ui/disclosure-toggle';
import { ErrorText } from '../../../components/ui/error-text';
import { isApiError } from '../../../lib/api-errors';
import { urlProblem } from '../../../lib/url-problem';
import { PageError, PageLoader } from '../../../components/ui/page-states';
import { useEventTypes } from '../../../api/campaigns';
import type {
  EndpointInput,
  EndpointOrdering,
  EventType,
  SignatureScheme,
} from '../../../api/types';
import {
  CustomHeadersFields,
  headerRowError,
  headersInput,
  type HeaderRow,
} from './custom-headers-fields';
import { EventSchemaPanel } from './event-schema-panel';
import { OrderingFields } from './ordering-fields';
import { FilterField, filterFieldError, toFilterInput } from './filter-field';
import { SignatureSchemeFields } from './signature-scheme-fields';
import {
  hasThrottleProblem,
  NO_THROTTLE,
  ThrottleFields,
  toThrottleInput,
  type ThrottleValues,
} from './throttle-fields';

/** The form's values. */
export interface EndpointFormValues {
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  /** Chosen at creation only: the edit form has none (a change of scheme is its own action). */
  signatureScheme?: SignatureScheme;
  /** Custom headers (docs/webhooks.md#custom-headers); none when left out. */
  headers?: HeaderRow[];
  /** The throttle's fields (docs/webhooks.md#throttling); absent: untouched, nothing sent. */
  throttle?: ThrottleValues;
  /** The delivery order (docs/webhooks.md#per-lead-ordering); absent: `none`, nothing sent. */
  ordering?: EndpointOrdering;
  /**
   * Whether it comes back by itself once disabled automatically
   * (docs/webhooks.md#endpoints-that-come-back-by-themselves); absent: untouched, nothing sent.
   */
  autoRecover?: boolean;
  /** The payload filter as typed (docs/webhooks.md#payload-filters); absent: nothing sent. */
  filter?: string;
}

export const EMPTY_ENDPOINT: EndpointFormValues = {
  url: '',
  description: '',
  events: [],
  enabled: true,
  signatureScheme: 'symmetric',
  filter: '',
};

/**
 * What the form sends: a trimmed URL, no empty description, the scheme only when chosen, and
 * `headers` only when they differ from `initialHeaders` ({@link headersInput}).
 */
export function toEndpointInput(
  values: EndpointFormValues,
  initialHeaders: HeaderRow[] = [],
): EndpointInput {
  const description = values.description.trim();
  const headers = headersInput(initialHeaders, values.headers ?? []);
  // The edit form sends no scheme: the service keeps the endpoint's.
  return {
    url: values.url.trim(),
    description: description === '' ? null : description,
    events: values.events as EndpointInput['events'],
    enabled: values.enabled,
    ...(values.signatureScheme ? { signature_scheme: values.signatureScheme } : {}),
    ...(headers === undefined ? {} : { headers }),
    ...toThrottleInput(values.throttle),
    ...(values.ordering ? { ordering: values.ordering } : {}),
    ...(values.autoRecover === undefined ? {} : { auto_recover: values.autoRecover }),
    ...toFilterInput(values.filter),
  } as EndpointInput;
}

/**
 * The service's refusal when it is about the URL (`url must use http or https, got "ftp"`, a
 * private address): said at the field. Null for any other error, which is shown above the form.
 */
export function urlFieldError(error: unknown): string | null {
  return isApiError(error, 422) && /^url\b/.test(error.message) ? error.message : null;
}

function EventTypeChoice({
  eventType,
  checked,
  onChange,
}: {
  eventType: EventType;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const [opened, { toggle }] = useDisclosure(false);
  const exampleId = useId();
  return (
    <Stack gap={4}>
      <Group gap="sm" wrap="nowrap" justify="space-between">
        <Checkbox
          label={eventType.type}
          checked={checked}
          onChange={(event) => onChange(event.currentTarget.checked)}
          styles={{ label: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <DisclosureToggle
          opened={opened}
          onToggle={toggle}
          label="example"
          name={`example of ${eventType.type}`}
          controls={exampleId}
        />
      </Group>
      {/* The description sits under the type's name, above whatever is opened. */}
      <EventSchemaPanel eventType={eventType} />
      {opened && (
        <Code block fz="xs" id={exampleId} style={{ maxHeight: 260, overflow: 'auto' }}>
          {JSON.stringify(eventType.example, null, 2)}
        </Code>
      )}
    </Stack>
  );
}

/**
 * The endpoint form (create and edit): **URL**, **Description**, one checkbox per event type
 * (its exact string, with its example payload one click away) and the enabled switch. The URL
 * is checked in the browser first ({@link urlProblem}); the service's refusals are shown in its
 * words, at the URL field when they are about the URL and beside the custom header's row when
 * they are about one ({@link headerRowError}).
 */
export function EndpointForm({
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
  onCancel,
  campaignId,
}: {
  initial: EndpointFormValues;
  /** The endpoint's campaign: the filter's "Try it" reads its recent events. */
  campaignId?: number;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (input: EndpointInput) => void;
  onCancel?: () => void;
}) {
  const eventTypes = useEventTypes();
  const [values, setValues] = useState(initial);
  const [noEvents, setNoEvents] = useState(false);
  // The URL is checked once the field is left or the form submitted, then as it is typed.
  const [urlChecked, setUrlChecked] = useState(false);
  // Which URL the service's error is about: editing the field clears it.
  const [sentUrl, setSentUrl] = useState<string | null>(null);
  const localUrlProblem = urlChecked ? urlProblem(values.url) : null;
  const serverUrlProblem = sentUrl === values.url ? urlFieldError(error) : null;
  const urlError = localUrlProblem ?? serverUrlProblem;
  // The rows the service's error is about: editing any row clears it (a new array).
  const [sentHeaders, setSentHeaders] = useState<HeaderRow[] | undefined>(undefined);
  const rowError =
    sentHeaders !== undefined && sentHeaders === values.headers
      ? headerRowError(error, sentHeaders)
      : null;
  // Which filter the service's error is about: editing it clears the error.
  const [sentFilter, setSentFilter] = useState<string | undefined>(undefined);
  const filterError =
    sentFilter !== undefined && sentFilter === values.filter ? filterFieldError(error) : null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setUrlChecked(true);
    const problem = urlProblem(values.url);
    setNoEvents(values.events.length === 0);
    if (problem !== null || values.events.length === 0 || hasThrottleProblem(values.throttle))
      return;
    setSentUrl(values.url);
    setSentHeaders(values.headers);
    setSentFilter(values.filter);
    // An unchanged filter is not sent: saving other fields records no filter change.
    const unchangedFilter = values.filter?.trim() === initial.filter?.trim();
    onSubmit(
      toEndpointInput(
        { ...values, ...(unchangedFilter ? { filter: undefined } : {}) },
        initial.headers,
      ),
    );
  }

  function toggleEvent(type: string, checked: boolean) {
    // A ticked type answers "Choose at least one event type.": the error goes at once.
    if (checked) setNoEvents(false);
    setValues((v) => ({
      ...v,
      events: checked
        ? [...v.events.filter((e) => e !== type), type]
        : v.events.filter((e) => e !== type),
    }));
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md" maw={720}>
        {error &&
        urlFieldError(error) === null &&
        filterFieldError(error) === null &&
        headerRowError(error, sentHeaders ?? []) === null ? (
          <ErrorText error={error} title="The endpoint was not saved" />
        ) : null}
        <TextInput
          label="URL"
          description="Where the events are POSTed, signed (https:// in production)."
          placeholder="https://example.com/webhooks"
          type="url"
          required
          withAsterisk={false}
          spellCheck={false}
          value={values.url}
          onChange={(event) => {
            const url = event.currentTarget.value;
            setValues((v) => ({ ...v, url }));
          }}
          onBlur={() => setUrlChecked(true)}
          error={urlError}
        />
        <Textarea
          label="Description"
          description="Optional: what this endpoint is for."
          rows={3}
          value={values.description}
          onChange={(event) => {
            const description = event.currentTarget.value;
            setValues((v) => ({ ...v, description }));
          }}
        />
        <Fieldset legend="Events to send" radius="md">
          {eventTypes.isPending ? (
            <PageLoader label="Loading the event types…" />
          ) : eventTypes.isError ? (
            <PageError error={eventTypes.error} onRetry={() => void eventTypes.refetch()} />
          ) : (
            <Stack gap="sm">
              {eventTypes.data.map((eventType) => (
                <EventTypeChoice
                  key={eventType.type}
                  eventType={eventType}
                  checked={values.events.includes(eventType.type)}
                  onChange={(checked) => toggleEvent(eventType.type, checked)}
                />
              ))}
              {noEvents && (
                <Text c="red" size="sm" role="alert">
                  Choose at least one event type.
                </Text>
              )}
            </Stack>
          )}
        </Fieldset>
        {campaignId !== undefined && values.filter !== undefined && (
          <FilterField
            campaignId={campaignId}
            value={values.filter}
            events={values.events}
            onChange={(filter) => setValues((v) => ({ ...v, filter }))}
            error={filterError}
          />
        )}
        {values.signatureScheme && (
          <SignatureSchemeFields
            value={values.signatureScheme}
            onChange={(signatureScheme) => setValues((v) => ({ ...v, signatureScheme }))}
          />
        )}
        <CustomHeadersFields
          value={values.headers ?? []}
          onChange={(headers) => setValues((v) => ({ ...v, headers }))}
          rowError={rowError}
        />
        <ThrottleFields
          value={values.throttle ?? NO_THROTTLE}
          onChange={(throttle) => setValues((v) => ({ ...v, throttle }))}
        />
        <OrderingFields
          value={values.ordering ?? 'none'}
          onChange={(ordering) => setValues((v) => ({ ...v, ordering }))}
        />
        <Switch
          label="Enabled"
          description="A disabled endpoint receives nothing until it is enabled again."
          checked={values.enabled}
          onChange={(event) => {
            const enabled = event.currentTarget.checked;
            setValues((v) => ({ ...v, enabled }));
          }}
        />
        <Switch
          label="Come back automatically"
          description="Once disabled for failing, it is sent a signed ping now and then (by default after 1 h, 2 h, 4 h…, at most daily, for 30 days); the first answered with a 2xx enables it again and replays what it missed."
          checked={values.autoRecover ?? false}
          onChange={(event) => {
            const autoRecover = event.currentTarget.checked;
            setValues((v) => ({ ...v, autoRecover }));
          }}
        />
        <Group gap="sm">
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}
