import { Code, Group, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useId } from 'react';
import type { EventType } from '../../../api/types';
import { DisclosureToggle } from '../../../components/ui/disclosure-toggle';

/**
 * An event type's description and, one click away, the JSON Schema (draft 2020-12) of its whole
 * body as `GET /event-types` serves it (docs/webhooks.md#payload-schemas). The toggle is a
 * button named after the type, with `aria-expanded` and `aria-controls`; the schema scrolls
 * inside its own box, so the form keeps its width on a 390 px screen.
 */
export function EventSchemaPanel({ eventType }: { eventType: EventType }) {
  const [opened, { toggle }] = useDisclosure(false);
  const schemaId = useId();
  return (
    <Stack gap={4} pl={30}>
      <Group gap="sm" wrap="wrap" justify="space-between">
        <Text size="xs" c="dimmed" style={{ flex: '1 1 12rem' }}>
          {eventType.description}
        </Text>
        <DisclosureToggle
          opened={opened}
          onToggle={toggle}
          label="schema"
          name={`JSON Schema of ${eventType.type}`}
          controls={schemaId}
        />
      </Group>
      {opened && (
        <Code
          block
          fz="xs"
          id={schemaId}
          aria-label={`JSON Schema of ${eventType.type}`}
          style={{ maxHeight: 320, maxWidth: '100%', overflow: 'auto' }}
        >
          {JSON.stringify(eventType.schema, null, 2)}
        </Code>
      )}
    </Stack>
  );
}
