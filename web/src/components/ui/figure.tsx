import { Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A labelled figure: a small dimmed caption above its value. */
export function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" fw={500} component="div">
        {children}
      </Text>
    </Stack>
  );
}
