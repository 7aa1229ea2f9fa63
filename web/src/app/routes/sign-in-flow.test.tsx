import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { setCsrfToken } from '../../lib/api-client';
import { ApiError } from '../../lib/api-errors';
import { setSessionEndReason } from '../../lib/session-end';
import { fakeSession, json, stubFetch } from '../../testing/fake-api';
import { renderRoutes } from '../../testing/render';
import { routes } from '../router';

const UNAUTHORIZED = { error: 'unauthorized', message: 'Wrong email or password' };

/** A fake dashboard API: signed out until a sign-in with `password` succeeds. */
function fakeService({ password = 'correct horse battery staple', signedIn = false } = {}) {
  let session = signedIn ? fakeSession() : null;
  return stubFetch(async (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/dashboard/api/session' && request.method === 'GET') {
      return session
        ? json(200, session)
        : json(401, { error: 'unauthorized', message: 'Sign in first' });
    }
    if (path === '/dashboard/api/session' && request.method === 'POST') {
      const body = (await request.json()) as { email: string; password: string };
      if (body.password !== password) return json(401, UNAUTHORIZED);
      session = fakeSession({ email: body.email });
      return json(200, session);
    }
    if (path === '/dashboard/api/session' && request.method === 'DELETE') {
      session = null;
      return new Response(null, { status: 204 });
    }
    return json(404, { error: 'not_found', message: 'Not found' });
  });
}

async function signInWith(email: string, password: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('sign-in and the route guard', () => {
  afterEach(() => {
    setCsrfToken(null);
    setSessionEndReason(null);
  });

  it('shows the sign-in form at / when signed out', async () => {
    fakeService();
    renderRoutes(routes, '/');
    expect(await screen.findByLabelText('Email')).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('sends a signed-out deep link to sign in, then back to that page', async () => {
    const { requests } = fakeService();
    const { router } = renderRoutes(routes, '/audit-log?page=2');
    await screen.findByLabelText('Email');
    expect(router.state.location.pathname).toBe('/');
    expect(router.state.location.search).toBe('?next=%2Faudit-log%3Fpage%3D2');

    await signInWith('ada@example.com', 'correct horse battery staple');

    expect(await screen.findByRole('heading', { name: 'Audit log' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/audit-log');
    expect(router.state.location.search).toBe('?page=2');
    const signIn = requests().find((request) => request.method === 'POST')!;
    expect(signIn.headers.get('x-csrf-token')).toBe('sign-in');
    expect(await signIn.json()).toEqual({
      email: 'ada@example.com',
      password: 'correct horse battery staple',
    });
  });

  it("shows the service's message when the email or password is wrong, and stays signed out", async () => {
    fakeService();
    const { router } = renderRoutes(routes, '/');
    await signInWith('ada@example.com', 'wrong password!');
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong email or password');
    expect(screen.getByLabelText('Password')).toHaveValue('');
    expect(screen.getByLabelText('Email')).toHaveValue('ada@example.com');
    expect(router.state.location.pathname).toBe('/');
  });

  it('waits out Retry-After after too many attempts', async () => {
    stubFetch(async (request) =>
      request.method === 'GET'
        ? json(401, { error: 'unauthorized', message: 'Sign in first' })
        : json(
            429,
            { error: 'rate_limited', message: 'Too many sign-in attempts. Try again later.' },
            { 'retry-after': '30' },
          ),
    );
    renderRoutes(routes, '/');
    await signInWith('ada@example.com', 'whatever it is');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Too many sign-in attempts. Try again later.');
    expect(alert).toHaveTextContent(/You can try again in (30|29) s\./);
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeDisabled();
  });

  it('shows the shell with the user, their role and the navigation once signed in', async () => {
    fakeService({ signedIn: true });
    renderRoutes(routes, '/campaigns');
    expect(await screen.findByRole('heading', { name: 'Campaigns' })).toBeInTheDocument();
    for (const name of ['Campaigns', 'API keys', 'Audit log']) {
      expect(screen.getByRole('link', { name })).toBeInTheDocument();
    }
    expect(screen.getByRole('link', { name: 'Campaigns' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getAllByText('ada@example.com').length).toBeGreaterThan(0);
    expect(screen.getAllByText('admin').length).toBeGreaterThan(0);
  });

  it("signs out with the session's CSRF token and lands on the plain sign-in page", async () => {
    const { requests } = fakeService({ signedIn: true });
    const { router } = renderRoutes(routes, '/api-keys');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByLabelText('Email')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(router.state.location.search).toBe('');
    const signOut = requests().find((request) => request.method === 'DELETE')!;
    expect(signOut.headers.get('x-csrf-token')).toBe(fakeSession().csrf_token);
  });

  it('sends the user to sign in again, with a notice, when a request finds the session ended', async () => {
    fakeService({ signedIn: true });
    const { router, queryClient } = renderRoutes(routes, '/campaigns');
    await screen.findByRole('heading', { name: 'Campaigns' });
    await queryClient
      .fetchQuery({
        queryKey: ['campaigns'],
        queryFn: () => Promise.reject(new ApiError(401, 'unauthorized', 'Session ended')),
      })
      .catch(() => undefined);
    expect(
      await screen.findByText('Your session has ended. Sign in again to continue.'),
    ).toBeVisible();
    await waitFor(() => expect(router.state.location.search).toBe('?next=%2Fcampaigns'));
  });

  it('shows a page that does not exist as such, inside the shell', async () => {
    fakeService({ signedIn: true });
    renderRoutes(routes, '/no-such-page');
    expect(await screen.findByText('Page not found')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Campaigns' })).toBeInTheDocument();
  });
});
