import { createTheme, MantineProvider } from '@mantine/core';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { cspNonce } from '../lib/csp-nonce';

/** The dashboard's Mantine theme: system fonts (nothing loaded from elsewhere), blue accents. */
export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  headings: { fontWeight: '650' },
  cursorType: 'pointer',
});

const nonce = cspNonce();

/**
 * Mantine (its run-time `<style>` tags carry the page's CSP nonce) and TanStack Query around
 * `children`. `env="test"` turns off Mantine's transitions and portals for unit tests.
 */
export function AppProvider({
  queryClient,
  children,
  env = 'default',
}: {
  queryClient: QueryClient;
  children: ReactNode;
  env?: 'default' | 'test';
}) {
  return (
    <MantineProvider
      theme={theme}
      defaultColorScheme="auto"
      getStyleNonce={nonce ? () => nonce : undefined}
      env={env}
    >
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </MantineProvider>
  );
}
