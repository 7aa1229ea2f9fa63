import { Card, Group, Radio, Stack, Text, Title } from '@mantine/core';
import { IconArrowsExchange } from '@tabler/icons-react';
import { ConfirmButton } from '../../../components/ui/confirm-button';
import { SecretValue } from '../../../components/ui/secret-value';
import type { Endpoint, SignatureScheme } from '../../../api/types';
import { useChangeSignatureScheme } from '../api/queries';

/** Each scheme in words, for the form and the switch. */
export const SCHEME_LABELS: Record<SignatureScheme, { label: string; description: string }> = {
  symmetric: {
    label: 'Symmetric (HMAC-SHA256, v1)',
    description: 'A shared whsec_ secret, shown once; your receiver keeps it secret.',
  },
  asymmetric: {
    label: 'Asymmetric (ed25519, v1a)',
    description:
      'Your receiver verifies with a public key; the secret key never leaves the service.',
  },
};

/**
 * The **Signature scheme** choice of the create form (docs/dashboard.md#signature-schemes):
 * symmetric (the default) or asymmetric.
 */
export function SignatureSchemeFields({
  value,
  onChange,
}: {
  value: SignatureScheme;
  onChange: (scheme: SignatureScheme) => void;
}) {
  return (
    <Radio.Group
      label="Signature scheme"
      description="How each delivery is signed (Standard Webhooks). You can switch later."
      value={value}
      onChange={(scheme) => onChange(scheme as SignatureScheme)}
    >
      <Stack gap="xs" mt="xs">
        {(Object.keys(SCHEME_LABELS) as SignatureScheme[]).map((scheme) => (
          <Radio
            key={scheme}
            value={scheme}
            label={SCHEME_LABELS[scheme].label}
            description={SCHEME_LABELS[scheme].description}
          />
        ))}
      </Stack>
    </Radio.Group>
  );
}

/**
 * An admin's **Switch to …** for an endpoint's signature scheme: a new key of the other scheme
 * signs from now on, and the current key keeps signing for 24 hours, so every delivery carries
 * both signatures until then. Switching to symmetric shows the new `whsec_` secret once;
 * switching to asymmetric shows nothing secret (the public key appears on the page).
 */
export function SignatureSchemeSwitch({ endpoint }: { endpoint: Endpoint }) {
  const change = useChangeSignatureScheme(endpoint.id);
  const target: SignatureScheme =
    endpoint.signature_scheme === 'asymmetric' ? 'symmetric' : 'asymmetric';
  return (
    <Card
      withBorder
      radius="md"
      padding="lg"
      component="section"
      aria-labelledby="scheme-title"
      data-testid="signature-scheme"
    >
      <Stack gap="sm">
        <Title order={2} size="h4" id="scheme-title">
          Signature scheme
        </Title>
        <Text size="sm">
          <strong>{SCHEME_LABELS[endpoint.signature_scheme].label}</strong>:{' '}
          {SCHEME_LABELS[endpoint.signature_scheme].description}
        </Text>
        <Group gap="sm">
          <ConfirmButton
            label={`Switch to ${target}`}
            title={`Switch to ${SCHEME_LABELS[target].label}?`}
            message={`${SCHEME_LABELS[target].description} The current key keeps signing every delivery for 24 hours, next to the new one, so update your receiver before then.`}
            confirmLabel="Switch now"
            color="orange"
            leftSection={<IconArrowsExchange size={16} aria-hidden />}
            pending={change.isPending}
            error={change.error}
            onConfirm={() => change.mutateAsync(target)}
          />
        </Group>
        {change.data?.secret && (
          <SecretValue value={change.data.secret} title="New signing secret" once>
            <Text size="xs" c="dimmed">
              Deliveries carry a v1 signature with it from now on.
            </Text>
          </SecretValue>
        )}
      </Stack>
    </Card>
  );
}
