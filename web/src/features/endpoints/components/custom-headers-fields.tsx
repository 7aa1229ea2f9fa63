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
import { isApiError } from '../../../lib/api-errors';
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

/** The service's refusal of one custom header, said beside that row's name or value. */
export interface HeaderRowError {
  /** The row in the form (blank rows counted). */
  index: number;
  /** Which field of the row the refusal is about. */
  field: 'name' | 'value';
  message: string;
}

/** The rows `headersInput` sends, by their index in the form: blank rows are not sent. */
function sentRowIndexes(rows: readonly HeaderRow[]): number[] {
  return rows.flatMap((r, i) => (r.name.trim() !== '' || r.value.trim() !== '' ? [i] : []));
}

/** The name a refusal quotes (`header "X-Tenant" …`, JSON, cut at 40 characters with …). */
function quotedName(message: string): string | null {
  const quoted = /^header(?: name)? ("(?:[^"\\]|\\.)*")/.exec(message);
  if (!quoted) return null;
  try {
    return JSON.parse(quoted[1]) as string;
  } catch {
    return null;
  }
}

/**
 * Which row of `rows` (the rows as sent) the service's refusal `error` is about, from its
 * message (docs/webhooks.md#custom-headers): `header 2 needs a name` counts the rows sent,
 * `header "X-Tenant" …` and `header name "…" …` quote the name (cut at 40 characters with …; a
 * name given twice is the later row). Null for any other error, including one about all the
 * headers (`headers: at most 20 …`), which is shown above the form.
 */
export function headerRowError(error: unknown, rows: readonly HeaderRow[]): HeaderRowError | null {
  if (!isApiError(error, 422) || !error.message.startsWith('header ')) return null;
  const message = error.message;
  const sent = sentRowIndexes(rows);
  const numbered = /^header (\d+) needs a name/.exec(message);
  if (numbered) {
    const index = sent[Number(numbered[1]) - 1];
    return index === undefined ? null : { index, field: 'name', message };
  }
  const name = quotedName(message);
  if (name === null) return null;
  const cut = name.endsWith('…') ? name.slice(0, -1).toLowerCase() : null;
  const matches = sent.filter((i) => {
    const rowName = rows[i].name.trim().toLowerCase();
    return cut === null ? rowName === name.toLowerCase() : rowName.startsWith(cut);
  });
  const index = / is given twice/.test(message) ? matches.at(-1) : matches.at(0);
  if (index === undefined) return null;
  const aboutValue = /^header "(?:[^"\\]|\\.)*"(?:: the value| needs a value)/.test(message);
  return { index, field: aboutValue ? 'value' : 'name', message };
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
  rowError = null,
}: {
  value: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  /** The service's refusal of one row ({@link headerRowError}), shown at its field. */
  rowError?: HeaderRowError | null;
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
          const errorAt = (field: HeaderRowError['field']) =>
            rowError?.index === index && rowError.field === field ? rowError.message : undefined;
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
            error: errorAt('value'),
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
                error={errorAt('name')}
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
                <Table.Td style={{ overflowWrap: 'anywhere' }}>
                  <Code>{h.name}</Code>{' '}
                  {h.secret && (
                    <Badge size="xs" variant="light" color="grape">
                      secret
                    </Badge>
                  )}
                </Table.Td>
                {/* A mask (••••9a61) is never split; a plain value wraps, inside a word when it must. */}
                <Table.Td
                  style={h.secret ? { whiteSpace: 'nowrap' } : { overflowWrap: 'anywhere' }}
                  data-testid="custom-header-value"
                >
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
