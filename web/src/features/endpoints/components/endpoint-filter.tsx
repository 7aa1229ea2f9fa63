import { Code, Stack, Text } from '@mantine/core';

/**
 * An endpoint's payload filter on its page (docs/webhooks.md#payload-filters): the expression in
 * monospace, wrapped, or that it has none.
 */
export function EndpointFilter({ filter }: { filter: string | null }) {
  return (
    <Stack gap={4} data-testid="endpoint-filter">
      <Text size="sm">
        Filter:{' '}
        {filter === null ? (
          <Text span c="dimmed" size="sm">
            none, every event of these types is sent
          </Text>
        ) : (
          'only events it matches are sent'
        )}
      </Text>
      {filter !== null && (
        <Code block fz="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {filter}
        </Code>
      )}
    </Stack>
  );
}
