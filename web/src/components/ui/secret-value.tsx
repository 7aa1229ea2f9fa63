import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import { IconCheck, IconCopy, IconLock } from '@tabler/icons-react';
import type { ReactNode } from 'react';

/**
 * A secret (a signing secret `whsec_…`, an API key) shown as text with a **Copy** button that
 * puts it on the clipboard. `once` says it will not be shown again.
 */
export function SecretValue({
  value,
  title,
  once = false,
  children,
  onDone,
}: {
  value: string;
  title: string;
  once?: boolean;
  children?: ReactNode;
  onDone?: () => void;
}) {
  return (
    <Alert
      color={once ? 'yellow' : 'blue'}
      variant="light"
      icon={<IconLock aria-hidden />}
      title={title}
      data-testid="secret-value"
    >
      <Stack gap="sm">
        {once && (
          <Text size="sm" fw={500}>
            Copy it now: it is shown only once, here.
          </Text>
        )}
        <Code
          block
          data-testid="secret-text"
          style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}
        >
          {value}
        </Code>
        {children}
        <Group gap="sm">
          <CopyButton value={value} timeout={2000}>
            {({ copied, copy }) => (
              <Button
                size="xs"
                variant={copied ? 'filled' : 'light'}
                color={copied ? 'teal' : undefined}
                leftSection={
                  copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />
                }
                onClick={copy}
                aria-label="Copy"
              >
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
          {onDone && (
            <Button size="xs" variant="default" onClick={onDone}>
              Done
            </Button>
          )}
        </Group>
      </Stack>
    </Alert>
  );
}
