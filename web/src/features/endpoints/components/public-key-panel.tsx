import {
  ActionIcon,
  Card,
  CopyButton,
  Group,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconCheck, IconCopy, IconRefresh } from '@tabler/icons-react';
import { useId, type ReactNode } from 'react';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { Timestamp } from '../../../components/ui/timestamp';
import type { Endpoint } from '../../../api/types';
import { useRotateSecret } from '../api/queries';

/**
 * A public key (`whpk_…`) as a read-only field named by `label`, with a copy button named after
 * it. Not a secret: it is what receivers verify `v1a` signatures with.
 */
export function PublicKeyValue({
  label,
  value,
  description,
}: {
  label: string;
  value: string;
  description?: ReactNode;
}) {
  const id = useId();
  return (
    <Group gap="xs" align="flex-end" wrap="nowrap">
      <TextInput
        id={id}
        label={label}
        description={description}
        value={value}
        readOnly
        spellCheck={false}
        style={{ flex: 1 }}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        onFocus={(event) => event.currentTarget.select()}
      />
      <CopyButton value={value} timeout={2000}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow>
            <ActionIcon
              variant={copied ? 'filled' : 'light'}
              color={copied ? 'teal' : undefined}
              size="lg"
              onClick={copy}
              aria-label={`Copy ${label.toLowerCase()}`}
            >
              {copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}

/**
 * The ed25519 keys of an endpoint (docs/dashboard.md#signature-schemes): the public key that
 * verifies its `v1a` signatures, and after a rotation or a change of scheme the previous public
 * key with until when it still signs. An admin of an `asymmetric` endpoint can rotate the key
 * pair. Nothing for an endpoint with neither key (symmetric, no ed25519 key in its overlap).
 */
export function PublicKeyPanel({
  endpoint,
  canChange,
}: {
  endpoint: Endpoint;
  canChange: boolean;
}) {
  const rotate = useRotateSecret(endpoint.id);
  if (!endpoint.public_key && !endpoint.previous_public_key) return null;
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="keys-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="keys-title">
          Public key (ed25519)
        </Title>
        <Text size="sm" c="dimmed">
          Deliveries carry a <code>v1a</code> ed25519 signature; your receiver verifies it with this
          public key. It is not a secret. The secret key never leaves the service.
        </Text>
        {endpoint.public_key && <PublicKeyValue label="Public key" value={endpoint.public_key} />}
        {endpoint.previous_public_key && endpoint.previous_secret_expires_at && (
          <PublicKeyValue
            label="Previous public key"
            value={endpoint.previous_public_key}
            description={
              <span data-testid="previous-public-key-expiry">
                Still signs every delivery until{' '}
                <Timestamp value={endpoint.previous_secret_expires_at} />.
              </span>
            }
          />
        )}
        {!endpoint.previous_public_key && endpoint.previous_secret_expires_at && (
          <Text size="sm" data-testid="previous-secret">
            The previous signing secret (<code>whsec_</code>, <code>v1</code> signatures) still
            signs every delivery until <Timestamp value={endpoint.previous_secret_expires_at} />.
          </Text>
        )}
        {canChange && endpoint.signature_scheme === 'asymmetric' && (
          <Group gap="sm">
            <ConfirmButton
              label="Rotate key pair"
              title="Rotate the ed25519 key pair?"
              message="A new key pair signs every delivery from now on. The current one keeps signing for 24 hours, so give your receiver the new public key before then."
              confirmLabel="Rotate now"
              color="orange"
              leftSection={<IconRefresh size={16} aria-hidden />}
              pending={rotate.isPending}
              error={rotate.error}
              onConfirm={() => rotate.mutateAsync()}
            />
          </Group>
        )}
      </Stack>
    </Card>
  );
}
