import { Button, Card, Code, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useId, useState, type FormEvent } from 'react';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { ErrorText } from '../../../components/ui/error-text';
import { PageError, PageHeader, PageLoader } from '../../../components/ui/page-states';
import { isApiError } from '../../../lib/api-errors';
import { useCanChange } from '../../../lib/roles';
import { usePortalOrigins, useSetPortalOrigins } from '../api/queries';
import { checkedOrigin, EXAMPLE_ORIGIN } from '../lib/portal-origin';

/** Long origins wrap anywhere rather than widen the page. */
const WRAP_ANYWHERE = { wordBreak: 'break-all' } as const;

/**
 * One registered origin; for an admin, **Remove** (named by the origin) after a confirmation,
 * saving the list without it.
 */
function OriginRow({
  origin,
  origins,
  canChange,
}: {
  origin: string;
  origins: string[];
  canChange: boolean;
}) {
  const remove = useSetPortalOrigins();
  return (
    <Group
      component="li"
      justify="space-between"
      wrap="nowrap"
      gap="sm"
      data-testid="portal-origin"
    >
      <Code style={WRAP_ANYWHERE}>{origin}</Code>
      {canChange && (
        <ConfirmButton
          label="Remove"
          title={`Remove ${origin}?`}
          message="Pages on this origin can no longer show the portal: the next portal page served refuses to be framed there, and links for it can no longer be minted."
          confirmLabel="Remove the origin"
          leftSection={<IconTrash size={16} aria-hidden />}
          buttonProps={{ size: 'xs', 'aria-label': `Remove ${origin}` }}
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutateAsync(origins.filter((o) => o !== origin))}
        />
      )}
    </Group>
  );
}

/**
 * The admin's form: **Portal origin** and **Add origin**. The origin is checked in the browser
 * first, as the service checks it ({@link checkedOrigin}, once the field is left or the form
 * submitted, then as it is typed); the service's `422` about it is said under the field, any
 * other error above the form. The field is emptied once the origin is saved.
 */
function AddOriginForm({ origins }: { origins: string[] }) {
  const save = useSetPortalOrigins();
  const [value, setValue] = useState('');
  const [checked, setChecked] = useState(false);
  // Which value the service's error is about: editing the field clears it.
  const [sent, setSent] = useState<string | null>(null);
  const check = checkedOrigin(value);
  const localProblem = checked && 'problem' in check ? check.problem : null;
  const duplicate =
    checked && 'origin' in check && origins.includes(check.origin)
      ? `${check.origin} is registered already`
      : null;
  const fieldError =
    localProblem ??
    duplicate ??
    (sent === value && isApiError(save.error, 422) ? save.error.message : null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setChecked(true);
    if (!('origin' in check) || origins.includes(check.origin)) return;
    setSent(value);
    save.mutate([...origins, check.origin], {
      onSuccess: () => {
        setValue('');
        setChecked(false);
        setSent(null);
      },
    });
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {save.isError && !isApiError(save.error, 422) && (
          <ErrorText error={save.error} title="The origin was not added" />
        )}
        <TextInput
          label="Portal origin"
          description="https://host[:port] of your page, without a path; http:// only for localhost and 127.0.0.0/8."
          placeholder={EXAMPLE_ORIGIN}
          type="url"
          spellCheck={false}
          autoComplete="off"
          value={value}
          onChange={(event) => setValue(event.currentTarget.value)}
          onBlur={() => setChecked(value.trim() !== '')}
          error={fieldError}
        />
        <Group gap="sm">
          <Button
            type="submit"
            loading={save.isPending}
            leftSection={<IconPlus size={16} aria-hidden />}
          >
            Add origin
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * The account's portal origins (docs/dashboard.md#embedding-the-portal): the origins whose pages
 * may frame the embedded portal, which its `frame-ancestors` lists exactly. An admin adds one
 * (checked in the browser as the service checks it) and removes one, each saved at once through
 * `PUT /account/portal-origins` and recorded in the audit log; a viewer reads them.
 */
export function PortalOriginSettings() {
  const canChange = useCanChange();
  const origins = usePortalOrigins();
  const titleId = useId();

  return (
    <>
      <PageHeader
        title="Embedded portal"
        description="Only pages on these origins may show your account’s embedded portal in an iframe: the portal tells browsers to refuse every other site."
      />
      <Stack gap="lg" maw={760}>
        {origins.isPending ? (
          <PageLoader label="Loading the portal origins…" />
        ) : origins.isError ? (
          <PageError error={origins.error} onRetry={() => void origins.refetch()} />
        ) : (
          <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={titleId}>
            <Stack gap="md">
              <Title order={2} size="h4" id={titleId}>
                Registered origins
              </Title>
              {origins.data.origins.length === 0 ? (
                <Text size="sm" data-testid="no-portal-origins">
                  No origin is registered: no page can frame the portal, and no portal link can be
                  minted.
                </Text>
              ) : (
                <Stack component="ul" gap="xs" m={0} p={0} style={{ listStyle: 'none' }}>
                  {origins.data.origins.map((origin) => (
                    <OriginRow
                      key={origin}
                      origin={origin}
                      origins={origins.data.origins}
                      canChange={canChange}
                    />
                  ))}
                </Stack>
              )}
              {canChange ? (
                <AddOriginForm origins={origins.data.origins} />
              ) : (
                <Text size="sm" c="dimmed">
                  Only an admin of your account can change them.
                </Text>
              )}
            </Stack>
          </Card>
        )}
      </Stack>
    </>
  );
}
