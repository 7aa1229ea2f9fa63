import {
  Alert,
  Button,
  Card,
  FileInput,
  Group,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconFileUpload } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ErrorText } from '../../../components/ui/error-text';
import {
  personInput,
  useAddSuppression,
  useImportSuppressions,
  useRemoveSuppression,
  useSuppressionCount,
  type SuppressionImport,
} from '../api/queries';

/** The largest CSV the service takes, in bytes (docs/privacy.md#suppression-list). */
export const SUPPRESSION_CSV_MAX_BYTES = 5 * 1024 * 1024;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One form changing the list by one person: add or remove. */
function PersonForm({ mode }: { mode: 'add' | 'remove' }) {
  const add = useAddSuppression();
  const remove = useRemoveSuppression();
  const change = mode === 'add' ? add : remove;
  const [phone, setPhone] = useState('');
  const [email, setEmail] = useState('');
  const [missing, setMissing] = useState(false);
  const verb = mode === 'add' ? 'add' : 'remove';

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = personInput(phone, email);
    const empty = input.phone === undefined && input.email === undefined;
    setMissing(empty);
    if (empty) return;
    const done = { onSuccess: () => (setPhone(''), setEmail('')) };
    if (mode === 'add') add.mutate(input, done);
    else remove.mutate(input, done);
  }

  let outcome: string | null = null;
  if (mode === 'add' && add.data) {
    outcome =
      add.data.added > 0
        ? `Added ${plural(add.data.added, 'entry', 'entries')}.`
        : 'Already on the list.';
  } else if (mode === 'remove' && remove.data) {
    outcome =
      remove.data.removed > 0
        ? `Removed ${plural(remove.data.removed, 'entry', 'entries')}.`
        : 'Not on the list: nothing removed.';
  }

  const title = mode === 'add' ? 'Add to the list' : 'Remove from the list';
  return (
    <form onSubmit={submit} noValidate aria-label={title}>
      <Stack gap="sm">
        <Title order={3} size="h5">
          {title}
        </Title>
        {missing && (
          <Alert color="red" variant="light" role="alert">
            Give a phone, an email or both.
          </Alert>
        )}
        {change.isError && <ErrorText error={change.error} />}
        {outcome && (
          <Text size="sm" role="status" data-testid={`suppression-${verb}-result`}>
            {outcome}
          </Text>
        )}
        <TextInput
          label={`Phone to ${verb}`}
          description="With the country code (+1 415…)."
          value={phone}
          onChange={(event) => setPhone(event.currentTarget.value)}
          autoComplete="off"
          inputMode="tel"
        />
        <TextInput
          label={`Email to ${verb}`}
          type="email"
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          autoComplete="off"
        />
        <Group>
          <Button
            type="submit"
            variant={mode === 'add' ? 'filled' : 'light'}
            color={mode === 'add' ? undefined : 'red'}
            loading={change.isPending}
          >
            {mode === 'add' ? 'Add to the list' : 'Remove from the list'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** What a CSV did, as sentences: every non-empty cell counted once. */
export function importSummary(outcome: SuppressionImport): string[] {
  return [
    `${plural(outcome.added, 'entry', 'entries')} added`,
    `${outcome.already_listed} already listed`,
    `${plural(outcome.invalid, 'cell', 'cells')} skipped (not a phone or email)`,
    `${plural(outcome.formula_cells, 'formula cell', 'formula cells')} refused`,
  ];
}

function CsvImport() {
  const upload = useImportSuppressions();
  const [file, setFile] = useState<File | null>(null);
  const [tooLarge, setTooLarge] = useState(false);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!file) return;
    const large = file.size > SUPPRESSION_CSV_MAX_BYTES;
    setTooLarge(large);
    if (!large) upload.mutate(file);
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Import a CSV">
      <Stack gap="sm">
        <Title order={3} size="h5">
          Import a CSV
        </Title>
        <Text size="sm" c="dimmed">
          Every non-empty cell is one phone (with its country code) or email; at most 5 MiB. Cells
          that look like spreadsheet formulas are refused.
        </Text>
        <FileInput
          label="Suppression CSV"
          placeholder="Choose a .csv file"
          accept=".csv,text/csv"
          value={file}
          onChange={(chosen) => {
            setFile(chosen);
            setTooLarge(false);
            upload.reset();
          }}
          clearable
          leftSection={<IconFileUpload size={16} aria-hidden />}
        />
        {tooLarge && (
          <Alert color="red" variant="light" role="alert">
            The file is larger than 5 MiB: split it.
          </Alert>
        )}
        {upload.isError && <ErrorText error={upload.error} title="Nothing was imported" />}
        {upload.data && (
          <Alert
            color="green"
            variant="light"
            title="Imported"
            role="status"
            data-testid="suppression-import-result"
          >
            <Stack gap={2}>
              {importSummary(upload.data).map((line) => (
                <Text key={line} size="sm">
                  {line}
                </Text>
              ))}
            </Stack>
          </Alert>
        )}
        <Group>
          <Button type="submit" disabled={!file} loading={upload.isPending}>
            Upload CSV
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * The account's suppression list: its size (never its entries), add or remove one person, and
 * import a CSV.
 */
export function SuppressionList() {
  const count = useSuppressionCount();
  return (
    <Card
      withBorder
      radius="md"
      padding="lg"
      component="section"
      aria-labelledby="suppression-title"
    >
      <Stack gap="lg">
        <Stack gap={4}>
          <Title order={2} size="h4" id="suppression-title">
            Suppression list
          </Title>
          <Text size="sm" c="dimmed">
            Phones and emails that uploads refuse. Kept as keyed hashes: the list shows its size,
            never its entries.
          </Text>
          {count.isError ? (
            <ErrorText error={count.error} />
          ) : (
            <Text size="lg" fw={600} data-testid="suppression-count">
              {count.data ? plural(count.data.entries, 'entry', 'entries') : 'Counting…'}
            </Text>
          )}
        </Stack>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xl">
          <PersonForm mode="add" />
          <PersonForm mode="remove" />
        </SimpleGrid>
        <CsvImport />
      </Stack>
    </Card>
  );
}
