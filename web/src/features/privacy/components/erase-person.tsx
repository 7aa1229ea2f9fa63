import {
  Alert,
  Button,
  Card,
  Checkbox,
  Group,
  Modal,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconCircleCheck, IconEraser } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ErrorText } from '../../../components/ui/error-text';
import {
  personInput,
  useCampaignOptions,
  useErase,
  type ErasureCounts,
  type ErasureInput,
  type ErasureReceipt,
} from '../api/queries';

/** Each kind of record an erasure counts, in the order shown, with what the figure means. */
export const COUNT_LABELS: Array<[keyof ErasureCounts, string]> = [
  ['leads', 'Leads deleted'],
  ['import_rejections', 'Rejected import rows deleted'],
  ['spreadsheet_imports', 'Spreadsheet imports cancelled or emptied'],
  ['events', 'Events redacted'],
  ['deliveries_cancelled', 'Deliveries cancelled'],
  ['attempts', 'Delivery attempts redacted'],
  ['idempotency_records', 'Idempotency records deleted'],
  ['suppression_entries', 'Suppression list entries added'],
];

/** What the form sends: no empty phone or email, no campaign for "All campaigns". */
export function toErasureInput(
  phone: string,
  email: string,
  campaignId: string,
  suppress: boolean,
): ErasureInput {
  return {
    ...personInput(phone, email),
    campaign_id: campaignId === '' ? null : Number(campaignId),
    suppress,
  };
}

/** A receipt's counts, one line per kind of record. */
export function ReceiptCounts({ counts }: { counts: ErasureCounts }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" verticalSpacing={4} component="dl" m={0}>
      {COUNT_LABELS.map(([key, label]) => (
        <Group key={key} gap="xs" wrap="nowrap" justify="space-between">
          <Text component="dt" size="sm" c="dimmed">
            {label}
          </Text>
          <Text component="dd" size="sm" fw={600} m={0} data-testid={`count-${key}`}>
            {counts[key]}
          </Text>
        </Group>
      ))}
    </SimpleGrid>
  );
}

function Result({ receipt, onDone }: { receipt: ErasureReceipt; onDone: () => void }) {
  return (
    <Alert
      color="green"
      variant="light"
      icon={<IconCircleCheck aria-hidden />}
      title="The person was erased"
      role="status"
      data-testid="erasure-result"
    >
      <Stack gap="sm">
        <Text size="sm">
          Receipt <code>{receipt.id}</code>
          {receipt.suppressed ? ', added to the suppression list.' : '.'}
        </Text>
        <ReceiptCounts counts={receipt.counts} />
        <Group>
          <Button variant="default" size="xs" onClick={onDone}>
            Erase another person
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

/**
 * "Erase a person": phone and/or email, a campaign or all of them, and whether to add them to
 * the suppression list; a dialog asks before anything is erased (it cannot be undone). The
 * answer is the receipt's counts.
 */
export function ErasePerson() {
  const erase = useErase();
  const campaigns = useCampaignOptions();
  const [phone, setPhone] = useState('');
  const [email, setEmail] = useState('');
  const [campaignId, setCampaignId] = useState('');
  const [suppress, setSuppress] = useState(true);
  const [missing, setMissing] = useState(false);
  const [confirming, confirm] = useDisclosure(false);

  function review(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const empty = phone.trim() === '' && email.trim() === '';
    setMissing(empty);
    if (!empty) {
      erase.reset();
      confirm.open();
    }
  }

  function run() {
    erase.mutate(toErasureInput(phone, email, campaignId, suppress), {
      onSuccess: () => {
        confirm.close();
        setPhone('');
        setEmail('');
      },
    });
  }

  const campaignName =
    campaignId === ''
      ? 'every campaign of the account'
      : `the campaign ${campaigns.data?.find((c) => String(c.id) === campaignId)?.name ?? `#${campaignId}`}`;

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="erase-title">
      <Stack gap="md">
        <Title order={2} size="h4" id="erase-title">
          Erase a person
        </Title>
        {erase.data && !confirming ? (
          <Result receipt={erase.data} onDone={() => erase.reset()} />
        ) : (
          <form onSubmit={review} noValidate>
            <Stack gap="md" maw={560}>
              <Text size="sm" c="dimmed">
                Deletes their leads and rejected rows and redacts their events and delivery
                attempts. It cannot be undone.
              </Text>
              {missing && (
                <Alert color="red" variant="light" role="alert">
                  Give a phone, an email or both.
                </Alert>
              )}
              <TextInput
                label="Phone"
                description="With the country code (+1 415…), unless you pick a campaign."
                value={phone}
                onChange={(event) => setPhone(event.currentTarget.value)}
                autoComplete="off"
                inputMode="tel"
              />
              <TextInput
                label="Email"
                type="email"
                value={email}
                onChange={(event) => setEmail(event.currentTarget.value)}
                autoComplete="off"
              />
              <NativeSelect
                label="Campaign"
                value={campaignId}
                onChange={(event) => setCampaignId(event.currentTarget.value)}
                data={[
                  { value: '', label: 'All campaigns' },
                  ...(campaigns.data ?? []).map((c) => ({ value: String(c.id), label: c.name })),
                ]}
              />
              {campaigns.isError && <ErrorText error={campaigns.error} />}
              <Checkbox
                label="Add to the suppression list"
                description="Uploads naming them again are refused."
                checked={suppress}
                onChange={(event) => setSuppress(event.currentTarget.checked)}
              />
              <Group>
                <Button
                  type="submit"
                  color="red"
                  leftSection={<IconEraser size={16} aria-hidden />}
                >
                  Erase…
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Stack>
      <Modal
        opened={confirming}
        onClose={confirm.close}
        title="Erase this person?"
        centered
        // The scroll lock injects a <style> without the page's CSP nonce: refused, a console error.
        lockScroll={false}
      >
        <Stack gap="md">
          <Text size="sm">
            Everything stored about this person in {campaignName} is deleted or redacted
            {suppress ? ', and they are added to the suppression list' : ''}. This cannot be undone.
          </Text>
          {erase.isError && <ErrorText error={erase.error} title="Nothing was erased" />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={confirm.close}>
              Cancel
            </Button>
            <Button color="red" loading={erase.isPending} onClick={run}>
              Erase permanently
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Card>
  );
}
