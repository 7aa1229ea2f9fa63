/**
 * The route guard's decisions, as pure functions (the components in lib/auth.tsx apply them).
 * Paths are the router's: relative to the app's base (`/campaigns` is `/dashboard/campaigns`).
 */

/** Where a signed-in user lands when no page was asked for. */
export const HOME_PATH = '/campaigns';

/** The sign-in page's path. */
export const SIGN_IN_PATH = '/';

/** The query parameter that carries the page to return to after signing in. */
export const NEXT_PARAM = 'next';

/** What the session query knows. `session: null` means signed out. */
export type SessionState<S> =
  | { status: 'pending' }
  | { status: 'error'; error: unknown }
  | { status: 'success'; session: S | null };

/** Why the last session ended in this tab, when it did. */
export type SessionEndReason = 'signed-out' | 'expired' | null;

/** A location as the router gives it. */
export interface RouteLocation {
  pathname: string;
  search: string;
  hash: string;
}

const ORIGIN = 'https://dashboard.invalid';

/**
 * The in-app path that `raw` (a `next` parameter) names, or null when it is missing, the sign-in
 * page itself, or could lead elsewhere: only a path on the app's own origin (`/x`, never `//x`,
 * `/\x` or `https://x`) is followed, so a crafted sign-in link cannot send the user off-site.
 */
export function safeNextPath(raw: string | null | undefined): string | null {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return null;
  // Control characters (a tab or newline inside "//") are dropped by URL parsers: refuse them.
  if (/[\u0000-\u001f\u007f]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== ORIGIN) return null;
  const path = `${url.pathname}${url.search}${url.hash}`;
  return url.pathname === SIGN_IN_PATH ? null : path;
}

/** The sign-in page's URL that returns to `from` after signing in (just `/` for the home page). */
export function signInPathFor(from: RouteLocation): string {
  const target = `${from.pathname}${from.search}${from.hash}`;
  if (safeNextPath(target) === null) return SIGN_IN_PATH;
  return `${SIGN_IN_PATH}?${new URLSearchParams({ [NEXT_PARAM]: target }).toString()}`;
}

/** Where to go once signed in, given the sign-in page's query string. */
export function afterSignInPath(search: string): string {
  return safeNextPath(new URLSearchParams(search).get(NEXT_PARAM)) ?? HOME_PATH;
}

/** What a page that needs a session does. */
export type ProtectedDecision<S> =
  | { kind: 'wait' }
  | { kind: 'error'; error: unknown }
  | { kind: 'redirect'; to: string }
  | { kind: 'render'; session: S };

/**
 * A page that needs a session: wait for the session check; render with a session; without
 * one, go to the sign-in page, which brings the user back here afterwards (after a sign-out,
 * to the plain sign-in page); when the check itself failed (service down), show that error.
 */
export function decideProtectedRoute<S>(
  state: SessionState<S>,
  location: RouteLocation,
  endReason: SessionEndReason = null,
): ProtectedDecision<S> {
  if (state.status === 'pending') return { kind: 'wait' };
  if (state.status === 'error') return { kind: 'error', error: state.error };
  if (state.session !== null) return { kind: 'render', session: state.session };
  return {
    kind: 'redirect',
    to: endReason === 'signed-out' ? SIGN_IN_PATH : signInPathFor(location),
  };
}

/** What the sign-in page does. */
export type SignInDecision =
  { kind: 'wait' } | { kind: 'redirect'; to: string } | { kind: 'form'; checkError: unknown };

/**
 * The sign-in page: a signed-in user goes on to the page asked for (or home); anyone else gets
 * the form, also when the session check failed (with that error to show), since signing in
 * may still work.
 */
export function decideSignInRoute<S>(state: SessionState<S>, search: string): SignInDecision {
  if (state.status === 'pending') return { kind: 'wait' };
  if (state.status === 'error') return { kind: 'form', checkError: state.error };
  if (state.session !== null) return { kind: 'redirect', to: afterSignInPath(search) };
  return { kind: 'form', checkError: null };
}
