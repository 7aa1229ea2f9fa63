import {
  Alert,
  AppShell,
  Badge,
  Burger,
  Button,
  Group,
  NavLink,
  Text,
  ThemeIcon,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconAlertTriangle,
  IconAppWindow,
  IconBell,
  IconClipboardList,
  IconKey,
  IconLogout,
  IconShieldLock,
  IconSpeakerphone,
  IconWebhook,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { NavLink as RouterNavLink, Outlet, useLocation, useNavigation } from 'react-router';
import { errorMessage } from '../../lib/api-errors';
import { useCurrentSession, useSignOut } from '../../lib/auth';
import classes from './app-layout.module.css';

/** The sections of the dashboard, in the navigation's order; `adminOnly` ones are hidden from viewers. */
const SECTIONS: { to: string; label: string; icon: ReactNode; adminOnly?: boolean }[] = [
  { to: '/campaigns', label: 'Campaigns', icon: <IconSpeakerphone size={18} aria-hidden /> },
  { to: '/api-keys', label: 'API keys', icon: <IconKey size={18} aria-hidden /> },
  { to: '/audit-log', label: 'Audit log', icon: <IconClipboardList size={18} aria-hidden /> },
  {
    to: '/privacy',
    label: 'Privacy',
    icon: <IconShieldLock size={18} aria-hidden />,
    adminOnly: true,
  },
  {
    to: '/settings/notifications',
    label: 'Notifications',
    icon: <IconBell size={18} aria-hidden />,
  },
  {
    to: '/settings/portal',
    label: 'Embedded portal',
    icon: <IconAppWindow size={18} aria-hidden />,
  },
];

function SignedInUser() {
  const { user } = useCurrentSession();
  return (
    <Group gap="xs" wrap="nowrap" className={classes.user} data-testid="signed-in-user">
      <VisuallyHidden>Signed in as</VisuallyHidden>
      <Text size="sm" fw={500} truncate="end" title={user.email}>
        {user.email}
      </Text>
      <Badge
        size="sm"
        variant="light"
        color={user.role === 'admin' ? 'blue' : 'gray'}
        className={classes.role}
      >
        <VisuallyHidden>role: </VisuallyHidden>
        {user.role}
      </Badge>
    </Group>
  );
}

/**
 * The signed-in shell: a header (the product, the signed-in user and role, **Sign out**), the
 * navigation (**Campaigns**, **API keys**, **Audit log**, **Privacy** (admins only), **Notifications**, **Embedded portal**; a drawer behind a menu
 * button on narrow screens) and the page. A "Skip to content" link comes first for keyboard users.
 */
export function AppLayout() {
  const [navOpened, nav] = useDisclosure(false);
  const location = useLocation();
  const navigation = useNavigation();
  const signOut = useSignOut();
  const { user } = useCurrentSession();
  const sections = SECTIONS.filter((section) => !section.adminOnly || user.role === 'admin');

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !navOpened } }}
      padding={{ base: 'md', sm: 'lg' }}
    >
      <a href="#main" className={classes.skipLink}>
        Skip to content
      </a>
      <AppShell.Header>
        {navigation.state !== 'idle' && (
          <div className={classes.progress} role="progressbar" aria-label="Loading the page" />
        )}
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={navOpened}
              onClick={nav.toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={navOpened ? 'Close the menu' : 'Open the menu'}
              aria-expanded={navOpened}
              aria-controls="dashboard-navigation"
            />
            <ThemeIcon size={32} radius="md" aria-hidden>
              <IconWebhook size={18} />
            </ThemeIcon>
            <Text fw={700} truncate="end">
              Campaign API
            </Text>
          </Group>
          <Group gap="md" wrap="nowrap">
            <Group visibleFrom="sm">
              <SignedInUser />
            </Group>
            <Button
              variant="default"
              size="sm"
              leftSection={<IconLogout size={16} aria-hidden />}
              onClick={() => signOut.mutate()}
              loading={signOut.isPending}
            >
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar p="sm" id="dashboard-navigation" aria-label="Dashboard">
        <AppShell.Section hiddenFrom="sm" pb="sm" mb="sm" className={classes.mobileUser}>
          <SignedInUser />
        </AppShell.Section>
        <AppShell.Section grow component="nav" aria-label="Sections">
          {sections.map((section) => (
            <NavLink
              key={section.to}
              component={RouterNavLink}
              to={section.to}
              label={section.label}
              leftSection={section.icon}
              active={
                location.pathname === section.to || location.pathname.startsWith(`${section.to}/`)
              }
              variant="light"
              className={classes.navLink}
              // On a narrow screen, following a link closes the menu.
              onClick={nav.close}
            />
          ))}
        </AppShell.Section>
      </AppShell.Navbar>

      <AppShell.Main id="main" tabIndex={-1} className={classes.main}>
        {signOut.isError && (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertTriangle aria-hidden />}
            title="Could not sign out"
            withCloseButton
            closeButtonLabel="Dismiss"
            onClose={() => signOut.reset()}
            mb="md"
            role="alert"
          >
            {errorMessage(signOut.error)}
          </Alert>
        )}
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
