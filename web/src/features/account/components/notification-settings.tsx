import {
  Anchor,
  Button,
  Card,
  Code,
  DataList,
  Group,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { ErrorText } from '../../../components/ui/error-text';
import { PageError, PageHeader, PageLoader } from '../../../components/ui/page-states';
import { SecretValue } from '../../../components/ui/secret-value';
import { isApiError } from '../../../lib/api-errors';
import { urlProblem } from '../../../lib/url-problem';
import { useCanChange } from '../../../lib/roles';
import { useNotificationSetting, useUpdateNotificationSetting } from '../api/queries';
import classes from './notification-settings.module.css';

/** The example body shown on the page (docs/webhooks.md#operational-messages). */
const EXAMPLE_MESSAGE = JSON.stringify(
  {
    type: 'endpoint.failing',
    timestamp: '2026-11-25T18:20:00.000Z',
    data: {
      endpoint_id: 7,
      campaign_id: 42,
      url: 'https://crm.example.com/hooks',
      reason: 'failure_rate',
      last_hour_attempts: 40,
      last_hour_successes: 3,
    },
  },
  null,
  2,
);

/** Long values (URLs, secrets) wrap anywhere rather than widen the page. */
const WRAP_ANYWHERE = { wordBreak: 'break-all' } as const;

type Update = ReturnType<typeof useUpdateNotificationSetting>;

/** One card of the page: a `<section>` named by its heading. */
function Section({ title, children }: { title: string; children: ReactNode }) {
  const titleId = useId();
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={titleId}>
      <Stack gap="md">
        <Title order={2} size="h4" id={titleId}>
          {title}
        </Title>
        {children}
      </Stack>
    </Card>
  );
}

/** Where the messages go now, or that they go nowhere. */
function CurrentUrl({ url }: { url: string | null }) {
  if (url === null) {
    return (
      <Text size="sm" data-testid="notification-url">
        No notification URL is set. When an endpoint starts failing or is disabled, only the
        dashboard and the audit log say so.
      </Text>
    );
  }
  return (
    <Stack gap={4} data-testid="notification-url">
      <Text size="sm">Messages go to</Text>
      <Code block style={WRAP_ANYWHERE}>
        {url}
      </Code>
    </Stack>
  );
}

/** The example URL the form's placeholder and messages show. */
const EXAMPLE_URL = 'https://ops.example.com/campaign-api';

/**
 * The admin's form: the URL, **Save URL**, and **Remove URL** after a confirmation when one is
 * set. Like the endpoint form, the URL is checked in the browser first ({@link urlProblem}, once
 * the field is left or the form submitted, then as it is typed), and the service's refusal of it
 * is said under the field. Mounted again (a `key`) whenever the saved URL changes.
 */
function UrlForm({
  current,
  save,
  remove,
}: {
  current: string | null;
  save: Update;
  remove: Update;
}) {
  const [value, setValue] = useState(current ?? '');
  const [checked, setChecked] = useState(false);
  // Which URL the service's error is about: editing the field clears it.
  const [sent, setSent] = useState<string | null>(null);
  const localProblem = checked ? urlProblem(value, EXAMPLE_URL) : null;
  // A 422 is about the URL itself (a private address): said at the field.
  const fieldError =
    localProblem ?? (sent === value && isApiError(save.error, 422) ? save.error.message : null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setChecked(true);
    if (urlProblem(value) !== null) return;
    setSent(value);
    save.mutate(value.trim());
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {save.isError && !isApiError(save.error, 422) && (
          <ErrorText error={save.error} title="The URL was not saved" />
        )}
        <TextInput
          label="Notification URL"
          description="Where the messages are POSTed, signed (https:// in production). The address rules of endpoints apply."
          placeholder={EXAMPLE_URL}
          type="url"
          spellCheck={false}
          autoComplete="off"
          value={value}
          onChange={(event) => setValue(event.currentTarget.value)}
          onBlur={() => setChecked(true)}
          error={fieldError}
        />
        <Group gap="sm">
          <Button type="submit" loading={save.isPending}>
            Save URL
          </Button>
          {current !== null && (
            <ConfirmButton
              label="Remove URL"
              title="Remove the notification URL?"
              message="No more messages are sent until a URL is set again, which makes a new signing secret."
              confirmLabel="Remove the URL"
              pending={remove.isPending}
              error={remove.error}
              onConfirm={() => remove.mutateAsync(null).then(() => save.reset())}
            />
          )}
        </Group>
      </Stack>
    </form>
  );
}

/** The URL, its secret once when new, and (for admins) the form that changes it. */
function UrlSection({ url, canChange }: { url: string | null; canChange: boolean }) {
  const save = useUpdateNotificationSetting();
  const remove = useUpdateNotificationSetting();
  const secret = save.data?.secret;

  return (
    // Not titled "Notification URL": that is the field's name, which its label must find alone.
    <Section title="Where messages go">
      <CurrentUrl url={url} />
      {!canChange ? (
        <Text size="sm" c="dimmed">
          Only an admin of your account can change it.
        </Text>
      ) : secret ? (
        // Like a new API key: the secret replaces the form until **Done**, which forgets it.
        <SecretValue value={secret} title="Signing secret" once onDone={() => save.reset()}>
          <Text size="sm">
            You will not see it again. Your receiver verifies every message with it (below). Lost
            it? Remove the URL and set it again for a new one.
          </Text>
        </SecretValue>
      ) : (
        <>
          {save.isSuccess && (
            <Text size="sm" c="dimmed" role="status">
              Saved. The URL did not change, so its signing secret stays the same.
            </Text>
          )}
          <UrlForm key={url ?? ''} current={url} save={save} remove={remove} />
        </>
      )}
    </Section>
  );
}

/** Terms (as code) and what each means: side by side, stacked on a narrow screen. */
function Terms({ items }: { items: [string, ReactNode][] }) {
  const narrow = useMediaQuery('(max-width: 48em)') ?? false;
  return (
    <DataList
      orientation={narrow ? 'vertical' : 'horizontal'}
      labelWidth={170}
      styles={{ itemLabel: { color: 'var(--mantine-color-text)' } }}
    >
      {items.map(([term, meaning]) => (
        <DataList.Item key={term}>
          <DataList.ItemLabel>
            <Code>{term}</Code>
          </DataList.ItemLabel>
          <DataList.ItemValue>{meaning}</DataList.ItemValue>
        </DataList.Item>
      ))}
    </DataList>
  );
}

/** The two message types, when each is sent, and an example body. */
function MessagesSection() {
  return (
    <Section title="What is sent">
      <Terms
        items={[
          [
            'endpoint.failing',
            'An endpoint started failing: more than half of at least 20 attempts in the last hour failed, or every attempt of the last 24 hours did.',
          ],
          [
            'endpoint.disabled',
            'An endpoint was disabled automatically: it kept failing, with no success, for 5 days (unless your operator set another delay).',
          ],
        ]}
      />
      <Text size="sm">
        Each is a JSON POST, sent once when it happens and not retried; answer with any 2xx. The
        change is on the endpoint’s page and in the audit log either way.
      </Text>
      <Stack gap={4}>
        <Text size="sm">For example:</Text>
        <Code block className={classes.example}>
          {EXAMPLE_MESSAGE}
        </Code>
      </Stack>
    </Section>
  );
}

/** How a receiver checks a message: the Standard Webhooks headers and the signed content. */
function VerifySection() {
  return (
    <Section title="Verifying a message">
      <Text size="sm">
        Messages are signed like deliveries, following{' '}
        <Anchor href="https://www.standardwebhooks.com/" target="_blank" rel="noreferrer">
          Standard Webhooks
        </Anchor>
        , with the signing secret shown when the URL was set. Each carries three headers:
      </Text>
      <Terms
        items={[
          [
            'webhook-id',
            <>
              <Code>msg_</Code> and a UUID, different for every message
            </>,
          ],
          ['webhook-timestamp', 'when it was sent, in Unix seconds'],
          [
            'webhook-signature',
            <>
              <Code>v1,</Code> and the base64 HMAC-SHA256 of{' '}
              <Code>{'<webhook-id>.<webhook-timestamp>.<body>'}</Code>, keyed with the
              base64-decoded part of the secret after <Code>whsec_</Code>
            </>,
          ],
        ]}
      />
      <Text size="sm">
        Any Standard Webhooks library checks all three, e.g. the <Code>standardwebhooks</Code> npm
        package: <Code>{'new Webhook(secret).verify(body, headers)'}</Code> on the raw body, exactly
        as received.
      </Text>
    </Section>
  );
}

/**
 * The account's notification settings (docs/webhooks.md#operational-messages): where the
 * service sends `endpoint.failing` and `endpoint.disabled`, set, changed or removed by an
 * admin (a new URL's signing secret shown once), read only for a viewer; what is sent and how
 * to verify it.
 */
export function NotificationSettings() {
  const canChange = useCanChange();
  const setting = useNotificationSetting();

  return (
    <>
      <PageHeader
        title="Notifications"
        description="Where the service tells you about trouble with your endpoints: a signed message when one starts failing or is disabled automatically."
      />
      <Stack gap="lg" maw={760}>
        {setting.isPending ? (
          <PageLoader label="Loading the notification URL…" />
        ) : setting.isError ? (
          <PageError error={setting.error} onRetry={() => void setting.refetch()} />
        ) : (
          <UrlSection url={setting.data.url} canChange={canChange} />
        )}
        <MessagesSection />
        <VerifySection />
      </Stack>
    </>
  );
}
