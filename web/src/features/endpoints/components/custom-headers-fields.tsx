import {
  ActionIcon,
  Badge,
  Button,
  Checkbox,
  Code,
  Fieldset,
  Group,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { IconEye, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState, type ChangeEvent } from 'react';
import { ErrorText } from '../../../components/ui/error-text';
import { SecretValue } from '../../../components/ui/secret-value';
import type { CustomHeader, CustomHeaderInput } from '../../../api/types';
import { useRevealHeader } from '../api/queries';

/** Most custom headers an endpoint may have (docs/webhooks.md#custom-headers). */
export const MAX_HEADERS = 20;

/** One row of the form's custom headers. */
export interface HeaderRow {
  name: string;
  /** For a secret header already saved, empty keeps its value. */
  value: string;
  secret: boolean;
  /** The mask of a secret value already saved (`••••9a61`); null for a new or plain one. */
  savedMask: string | null;
}

/** The form rows of an endpoint's saved headers: a saved secret one's value left empty. */
export function headerRows(headers: readonly CustomHeader[] | undefined): HeaderRow[] {
  return (headers ?? []).map((h) => ({
    name: h.name,
    value: h.secret ? '' : (h.value ?? ''),
    secret: h.secret,
    savedMask: h.secret ? h.masked_value : null,
  }));
}

/**
 * What the form sends as `headers`: the rows without the blank ones, names and values trimmed, a
 * saved secret one left empty sent without a value (the service keeps it). Undefined when the rows
 * say the same as `initial`, so saving other fields leaves the headers (and their audit entry)
 * alone.
 */
export function headersInput(
  initial: readonly HeaderRow[],
  rows: readonly HeaderRow[],
): CustomHeaderInput[] | undefined {
  const kept = rows.filter((r) => r.name.trim() !== '' || r.value.trim() !== '');
  const same =
    kept.length === initial.length &&
    kept.every(
      (r, i) =>
        r.name.trim() === initial[i].name &&
        r.secret === initial[i].secret &&
        r.value.trim() === initial[i].value,
    );
  if (same) return undefined;
  return kept.map((r) =>
    r.secret && r.savedMask !== null && r.value.trim() === ''
      ? { name: r.name.trim(), secret: true }
      : { name: r.name.trim(), value: r.value.trim(), secret: r.secret },
  );
}

/**
 * The endpoint form's **Custom headers** (docs/webhooks.md#custom-headers): up to 20 rows of
 * name, value and a **Secret** checkbox, each control labelled with its row number ("Header 1
 * name"). A saved secret value is never in the page: its field is empty, shows the mask and keeps
 * the value unless something is typed. The service checks names and values.
 */
export function CustomHeadersFields({
  value,
  onChange,
}: {
  value: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
}) {
  const set = (index: number, change: Partial<HeaderRow>) =>
    onChange(value.map((row, i) => (i === index ? { ...row, ...change } : row)));

  return (
    <Fieldset legend="Custom headers" radius="md">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          Sent with every request to this endpoint, e.g. <Code>Authorization</Code> or a tenant id.
          Mark a header secret to store its value encrypted: it is then shown masked, and never in
          the delivery log.
        </Text>
        {value.map((row, index) => {
          const n = index + 1;
          const valueProps = {
            label: 'Value',
            'aria-label': `Header ${n} value`,
            value: row.value,
            spellCheck: false,
            autoComplete: 'off',
            placeholder: row.savedMask ? `Unchanged (${row.savedMask})` : undefined,
            description: row.savedMask ? 'Leave empty to keep the saved value.' : undefined,
            onChange: (event: ChangeEvent<HTMLInputElement>) =>
              set(index, { value: event.currentTarget.value }),
            style: { flex: '2 1 220px' },
          };
          return (
            <Group
              key={index}
              gap="xs"
              align="flex-end"
              wrap="wrap"
              data-testid="custom-header-row"
            >
              <TextInput
                label="Name"
                aria-label={`Header ${n} name`}
                placeholder="X-Tenant"
                spellCheck={false}
                autoComplete="off"
                value={row.name}
                onChange={(event) => set(index, { name: event.currentTarget.value })}
                style={{ flex: '1 1 160px' }}
              />
              {row.secret ? <PasswordInput {...valueProps} /> : <TextInput {...valueProps} />}
              <Checkbox
                label="Secret"
                aria-label={`Header ${n} secret`}
                checked={row.secret}
                onChange={(event) => {
                  const secret = event.currentTarget.checked;
                  // A plain saved value never becomes a kept secret: it is sent as typed.
                  set(index, { secret, savedMask: secret ? row.savedMask : null });
                }}
                mb={8}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove header ${n}`}
                onClick={() => onChange(value.filter((_, i) => i !== index))}
                mb={4}
              >
                <IconTrash size={16} aria-hidden />
              </ActionIcon>
            </Group>
          );
        })}
        <Group>
          <Button
            variant="light"
            size="xs"
            leftSection={<IconPlus size={14} aria-hidden />}
            disabled={value.length >= MAX_HEADERS}
            onClick={() =>
              onChange([...value, { name: '', value: '', secret: false, savedMask: null }])
            }
          >
            Add header
          </Button>
          {value.length >= MAX_HEADERS && (
            <Text size="xs" c="dimmed">
              An endpoint may have at most {MAX_HEADERS} custom headers.
            </Text>
          )}
        </Group>
      </Stack>
    </Fieldset>
  );
}

/**
 * The endpoint page's list of custom headers: names, plain values, secret ones marked and
 * masked, each with **Reveal** for an admin (every reveal is recorded in the audit log).
 */
export function CustomHeadersList({
  endpointId,
  headers,
  canReveal,
}: {
  endpointId: number;
  headers: readonly CustomHeader[];
  canReveal: boolean;
}) {
  const reveal = useRevealHeader(endpointId);
  const [shown, setShown] = useState<string | null>(null);
  if (headers.length === 0) return null;
  return (
    <Stack gap="xs" data-testid="custom-headers">
      <Text size="sm" fw={600}>
        Custom headers
      </Text>
      <Table.ScrollContainer minWidth={0}>
        <Table fz="sm" verticalSpacing={4} aria-label="Custom headers">
          <Table.Tbody>
            {headers.map((h) => (
              <Table.Tr key={h.name}>
                <Table.Td style={{ wordBreak: 'break-all' }}>
                  <Code>{h.name}</Code>{' '}
                  {h.secret && (
                    <Badge size="xs" variant="light" color="grape">
                      secret
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td style={{ wordBreak: 'break-all' }}>
                  {h.secret ? h.masked_value : h.value}
                </Table.Td>
                <Table.Td>
                  {h.secret && canReveal && (
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      leftSection={<IconEye size={14} aria-hidden />}
                      aria-label={`Reveal ${h.name}`}
                      loading={reveal.isPending && reveal.variables === h.name}
                      onClick={() => reveal.mutate(h.name, { onSuccess: () => setShown(h.name) })}
                    >
                      Reveal
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {reveal.isError && <ErrorText error={reveal.error} />}
      {shown !== null && reveal.data && reveal.data.name.toLowerCase() === shown.toLowerCase() && (
        <SecretValue
          value={reveal.data.value}
          title={`Value of ${reveal.data.name}`}
          onDone={() => setShown(null)}
        >
          <Text size="xs" c="dimmed">
            Revealing it was recorded in the audit log.
          </Text>
        </SecretValue>
      )}
    </Stack>
  );
}
