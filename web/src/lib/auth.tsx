import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { createContext, use, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import type { paths } from '../api/schema';
import { PageError, PageLoader } from '../components/ui/page-states';
import {
  api,
  CSRF_HEADER,
  setCsrfToken,
  SIGN_IN_CSRF_TOKEN,
  type DashboardApi,
} from './api-client';
import { isApiError } from './api-errors';
import { decideProtectedRoute, type SessionState } from './auth-guard';
import { setSessionEndReason, useSessionEndReason } from './session-end';

/** `GET /dashboard/api/session`: the signed-in user and the session's anti-CSRF token. */
export type Session =
  paths['/dashboard/api/session']['get']['responses'][200]['content']['application/json'];
/** The signed-in dashboard user. */
export type DashboardUser = Session['user'];
/** `POST /dashboard/api/session`'s body. */
export type SignInInput = NonNullable<
  paths['/dashboard/api/session']['post']['requestBody']
>['content']['application/json'];

/** The session query's key. */
export const sessionQueryKey = ['session'] as const;

/**
 * The current session, or null when signed out (401). Remembers its anti-CSRF token for the
 * requests that follow. Throws an ApiError for any other failure.
 */
export async function getSession(client: DashboardApi = api): Promise<Session | null> {
  try {
    const { data } = await client.GET('/dashboard/api/session');
    if (!data) throw new Error('GET /dashboard/api/session answered without a body');
    setCsrfToken(data.csrf_token);
    return data;
  } catch (error) {
    if (isApiError(error, 401)) {
      setCsrfToken(null);
      return null;
    }
    throw error;
  }
}

/** Signs in (the cookie is set by the response); throws an ApiError with the message to show. */
export async function signIn(input: SignInInput, client: DashboardApi = api): Promise<void> {
  await client.POST('/dashboard/api/session', {
    body: input,
    headers: { [CSRF_HEADER]: SIGN_IN_CSRF_TOKEN },
  });
}

/** Signs out; a session that had already ended (401) counts as signed out. */
export async function signOut(client: DashboardApi = api): Promise<void> {
  try {
    await client.DELETE('/dashboard/api/session');
  } catch (error) {
    if (!isApiError(error, 401)) throw error;
  }
}

/** Marks the session as ended: every page that needs one sends the user to sign in. */
export function endSession(queryClient: QueryClient, reason: 'signed-out' | 'expired'): void {
  setCsrfToken(null);
  setSessionEndReason(reason);
  queryClient.setQueryData(sessionQueryKey, null);
  // The previous user's data must not show up for the next one.
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionQueryKey[0] });
}

/** The session query. */
export function useSession() {
  return useQuery({ queryKey: sessionQueryKey, queryFn: () => getSession(), staleTime: 60_000 });
}

/** The session query as the guard reads it: data, even from before a failed refetch, wins. */
export function sessionStateOf(query: ReturnType<typeof useSession>): SessionState<Session> {
  if (query.data !== undefined) return { status: 'success', session: query.data };
  if (query.isPending) return { status: 'pending' };
  return { status: 'error', error: query.error };
}

/** Signing in: on success the session query holds the new session. */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SignInInput) => signIn(input),
    // A 401 here is a wrong email or password, not an ended session.
    meta: { unauthorizedIsExpected: true },
    onSuccess: async () => {
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionQueryKey[0] });
      const session = await queryClient.fetchQuery({
        queryKey: sessionQueryKey,
        queryFn: () => getSession(),
        staleTime: 0,
      });
      if (session) setSessionEndReason(null);
    },
  });
}

/** Signing out: on success every page that needs a session goes to the sign-in page. */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => signOut(),
    meta: { unauthorizedIsExpected: true },
    onSuccess: () => endSession(queryClient, 'signed-out'),
  });
}

const SessionContext = createContext<Session | null>(null);

/**
 * Gives `session` to `children` as {@link RequireSession} does: the embedded portal's session
 * (docs/dashboard.md#embedding-the-portal), whose role the pages read like a user's.
 */
export function SessionProvider({ session, children }: { session: Session; children: ReactNode }) {
  return <SessionContext value={session}>{children}</SessionContext>;
}

/** The signed-in session, inside {@link RequireSession}. */
export function useCurrentSession(): Session {
  const session = use(SessionContext);
  if (!session) throw new Error('useCurrentSession is used outside <RequireSession>');
  return session;
}

/**
 * Renders `children` for a signed-in user (who {@link useCurrentSession} then gives); sends
 * anyone else to the sign-in page, which brings them back to this URL afterwards.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  const endReason = useSessionEndReason();
  const decision = decideProtectedRoute(sessionStateOf(session), location, endReason);
  switch (decision.kind) {
    case 'wait':
      return <PageLoader label="Checking your session…" />;
    case 'error':
      return (
        <PageError
          title="Cannot check your session"
          error={decision.error}
          onRetry={() => void session.refetch()}
        />
      );
    case 'redirect':
      return <Navigate to={decision.to} replace />;
    case 'render':
      return <SessionContext value={decision.session}>{children}</SessionContext>;
  }
}
