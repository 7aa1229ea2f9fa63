import { Alert, Box, Center, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconInfoCircle, IconWebhook } from '@tabler/icons-react';
import { useDocumentTitle } from '@mantine/hooks';
import { Navigate, useLocation } from 'react-router';
import { PageLoader } from '../../components/ui/page-states';
import { SignInForm } from '../../features/auth/components/sign-in-form';
import { errorMessage } from '../../lib/api-errors';
import { sessionStateOf, useSession } from '../../lib/auth';
import { decideSignInRoute } from '../../lib/auth-guard';
import { useSessionEndReason } from '../../lib/session-end';
import { pageTitle } from '../page-title';

/** `/dashboard/`: the sign-in page, or on to the page asked for when already signed in. */
export function SignInRoute() {
  const session = useSession();
  const location = useLocation();
  const endReason = useSessionEndReason();
  useDocumentTitle(pageTitle('Sign in'));
  const decision = decideSignInRoute(sessionStateOf(session), location.search);
  if (decision.kind === 'wait') return <PageLoader label="Checking your session…" />;
  if (decision.kind === 'redirect') return <Navigate to={decision.to} replace />;

  return (
    <Center mih="100dvh" px="md" py="xl" bg="var(--mantine-color-body)">
      <Box w="100%" maw={400}>
        <Group gap="sm" mb="lg" justify="center">
          <ThemeIcon size={40} radius="md" aria-hidden>
            <IconWebhook size={22} />
          </ThemeIcon>
          <Text fw={700} size="lg">
            Campaign API
          </Text>
        </Group>
        <Paper withBorder shadow="sm" radius="md" p={{ base: 'lg', xs: 'xl' }}>
          <Stack gap="lg">
            <Stack gap={4}>
              <Title order={1} size="h3">
                Customer dashboard
              </Title>
              <Text size="sm" c="dimmed">
                Your webhook endpoints, delivery log, API keys and audit log. Use the email and
                password your operator gave you.
              </Text>
            </Stack>
            {endReason === 'expired' && (
              <Alert variant="light" color="blue" icon={<IconInfoCircle aria-hidden />}>
                Your session has ended. Sign in again to continue.
              </Alert>
            )}
            {decision.checkError !== null && (
              <Alert variant="light" color="yellow" icon={<IconInfoCircle aria-hidden />}>
                Could not check whether you are signed in: {errorMessage(decision.checkError)}
              </Alert>
            )}
            <SignInForm />
          </Stack>
        </Paper>
        <Text size="xs" c="dimmed" ta="center" mt="md">
          Dashboard accounts are created by your operator.
        </Text>
      </Box>
    </Center>
  );
}
