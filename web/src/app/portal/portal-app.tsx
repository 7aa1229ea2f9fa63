import { createTheme, MantineProvider, type MantineColorsTuple } from '@mantine/core';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { createMemoryRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import type { components } from '../../api/schema';
import { PageError, PageLoader } from '../../components/ui/page-states';
import { api, setPortalSession, SIGN_IN_CSRF_TOKEN, CSRF_HEADER } from '../../lib/api-client';
import { SessionProvider, type Session } from '../../lib/auth';
import { cspNonce } from '../../lib/csp-nonce';
import { theme as dashboardTheme } from '../provider';
import { isFromHost, messageFor, parentOriginOf, postToHost } from './portal-messages';
import { portalRoutes } from './portal-routes';

type PortalScope = components['schemas']['PortalSessionScope'];

/** Where the portal page is served: `/portal/<link id>`. */
export const PORTAL_PATH = /^\/portal\/([0-9a-f-]{36})\/?$/i;

/**
 * Reads the link's secret from the URL's fragment and removes it from the address at once
 * (`history.replaceState`): it is never kept, logged, or sent as a `Referer`.
 * @returns the link id (from the path) and the secret, or null when either is missing.
 */
export function takeLinkFromLocation(
  location: Pick<Location, 'pathname' | 'hash'> = window.location,
  history: Pick<History, 'replaceState'> = window.history,
): { linkId: string; secret: string } | null {
  const match = PORTAL_PATH.exec(location.pathname);
  const secret = location.hash.replace(/^#/, '');
  if (location.hash !== '') history.replaceState(null, '', location.pathname);
  if (!match || secret === '') return null;
  return { linkId: match[1].toLowerCase(), secret };
}

type Exchanged = components['schemas']['PortalExchangeResponse'];

let exchange: Promise<Exchanged | undefined> | null = null;

/** The one exchange of the page's link (once per page, whatever React renders twice). */
function exchangeOnce(link: { linkId: string; secret: string }): Promise<Exchanged | undefined> {
  exchange ??= api
    .POST('/dashboard/api/portal/exchange', {
      body: { link_id: link.linkId, secret: link.secret },
      headers: { [CSRF_HEADER]: SIGN_IN_CSRF_TOKEN },
    })
    .then(({ data }) => data);
  return exchange;
}

/** `#rrggbb` mixed with `toward` (`#ffffff` or `#000000`) by `weight` (0 to 1). */
function mix(color: string, toward: number, weight: number): string {
  const channel = (at: number) => {
    const value = parseInt(color.slice(at, at + 2), 16);
    return Math.round(value + (toward - value) * weight)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(1)}${channel(3)}${channel(5)}`;
}

/** A Mantine colour of ten shades around the theme's `#rrggbb` (its shade 6, the filled one). */
export function shadesOf(color: string): MantineColorsTuple {
  return [
    mix(color, 255, 0.9),
    mix(color, 255, 0.78),
    mix(color, 255, 0.62),
    mix(color, 255, 0.46),
    mix(color, 255, 0.3),
    mix(color, 255, 0.15),
    color,
    mix(color, 0, 0.15),
    mix(color, 0, 0.3),
    mix(color, 0, 0.45),
  ];
}

/** The session as the dashboard's pages read it: the portal's role, its subject as the user. */
function sessionOf(scope: PortalScope): Session {
  return {
    csrf_token: '',
    user: { id: 0, account_id: 0, email: `portal:${scope.subject_id}`, role: scope.role },
  };
}

type State =
  | { kind: 'exchanging' }
  | { kind: 'ready'; scope: PortalScope }
  | { kind: 'expired' }
  | { kind: 'no-host' };

/**
 * The embedded portal (docs/dashboard.md#embedding-the-portal): exchanges its link once for a
 * session kept in memory, then shows the session's pages without the dashboard's navigation,
 * in the theme of the mint request. Posts `portal.ready`, `endpoint.created`,
 * `endpoint.deleted` and `session.expired` to its parent origin only; answers `portal.ping`
 * from that origin only.
 */
export function PortalApp({
  queryClient,
  link,
}: {
  queryClient: QueryClient;
  /** The link read from the address by {@link takeLinkFromLocation}, before the first render. */
  link: { linkId: string; secret: string } | null;
}) {
  const parentOrigin = useMemo(() => parentOriginOf(), []);
  const [state, setState] = useState<State>(() =>
    parentOrigin === null ? { kind: 'no-host' } : { kind: 'exchanging' },
  );

  useEffect(() => {
    if (parentOrigin === null) return;
    let expired = false;
    const expire = () => {
      if (expired) return;
      expired = true;
      setPortalSession(null);
      queryClient.clear();
      postToHost({ type: 'session.expired' }, parentOrigin);
      setState({ kind: 'expired' });
    };
    if (link === null) {
      expire();
      return;
    }
    const onMessage = (event: MessageEvent) => {
      if (!isFromHost(event, parentOrigin)) return;
      const data = event.data as { type?: unknown } | null;
      if (data?.type === 'portal.ping') postToHost({ type: 'portal.pong' }, parentOrigin);
    };
    window.addEventListener('message', onMessage);
    exchangeOnce(link)
      .then((data) => {
        if (!data) return expire();
        setPortalSession(data.token, (request, response) => {
          void messageFor(request, response).then((message) => {
            if (message?.type === 'session.expired') expire();
            else if (message) postToHost(message, parentOrigin);
          });
        });
        setState({ kind: 'ready', scope: data.session });
        postToHost({ type: 'portal.ready', link_id: data.session.link_id }, parentOrigin);
      })
      .catch(expire);
    return () => window.removeEventListener('message', onMessage);
  }, [link, parentOrigin, queryClient]);

  const scope = state.kind === 'ready' ? state.scope : null;
  const theme = useMemo(() => {
    const color = scope?.theme.primary_color;
    return color
      ? createTheme({
          ...dashboardTheme,
          colors: { brand: shadesOf(color) },
          primaryColor: 'brand',
        })
      : dashboardTheme;
  }, [scope]);
  const router = useMemo(
    () =>
      scope
        ? createMemoryRouter(
            portalRoutes({ pages: scope.pages, logoUrl: scope.theme.logo_url ?? null }),
            { initialEntries: ['/campaigns'] },
          )
        : null,
    [scope],
  );
  const nonce = cspNonce();

  return (
    <MantineProvider
      theme={theme}
      forceColorScheme={scope?.theme.scheme}
      defaultColorScheme="light"
      getStyleNonce={nonce ? () => nonce : undefined}
    >
      <QueryClientProvider client={queryClient}>
        {state.kind === 'exchanging' && <PageLoader label="Opening the portal…" />}
        {state.kind === 'expired' && (
          <PageError
            title="This portal session has ended"
            error={new Error('The link was used already, has expired or was revoked.')}
          />
        )}
        {state.kind === 'no-host' && (
          <PageError
            title="This portal cannot open"
            error={new Error('The page does not say which site embeds it.')}
          />
        )}
        {scope && router && (
          <SessionProvider session={sessionOf(scope)}>
            <RouterProvider router={router} />
          </SessionProvider>
        )}
      </QueryClientProvider>
    </MantineProvider>
  );
}
