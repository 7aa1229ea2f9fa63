import { describe, expect, it } from 'vitest';
import {
  afterSignInPath,
  decideProtectedRoute,
  decideSignInRoute,
  HOME_PATH,
  safeNextPath,
  signInPathFor,
} from './auth-guard';

const at = (pathname: string, search = '', hash = '') => ({ pathname, search, hash });
const session = { user: 'ada' };

describe('safeNextPath', () => {
  it.each([
    ['/campaigns', '/campaigns'],
    ['/endpoints/12/attempts?outcome=failed#top', '/endpoints/12/attempts?outcome=failed#top'],
    ['/a/../campaigns', '/campaigns'],
  ])('follows the in-app path %j', (raw, path) => {
    expect(safeNextPath(raw)).toBe(path);
  });

  it.each([
    null,
    '',
    '/',
    '/?next=/x',
    'campaigns',
    '//evil.example/x',
    '/\\evil.example/x',
    '/\t/evil.example',
    'https://evil.example/x',
    'javascript:alert(1)',
  ])('refuses %j', (raw) => {
    expect(safeNextPath(raw)).toBeNull();
  });
});

describe('signInPathFor and afterSignInPath', () => {
  it('round-trips a deep link through the sign-in page', () => {
    const signIn = signInPathFor(at('/endpoints/12/attempts', '?outcome=failed'));
    expect(signIn).toBe('/?next=%2Fendpoints%2F12%2Fattempts%3Foutcome%3Dfailed');
    expect(afterSignInPath(signIn.slice(1))).toBe('/endpoints/12/attempts?outcome=failed');
  });

  it('sends the user home when nothing (or nothing safe) was asked for', () => {
    expect(signInPathFor(at('/'))).toBe('/');
    expect(afterSignInPath('')).toBe(HOME_PATH);
    expect(afterSignInPath('?next=%2F%2Fevil.example')).toBe(HOME_PATH);
  });
});

describe('decideProtectedRoute', () => {
  it('waits for the session check', () => {
    expect(decideProtectedRoute({ status: 'pending' }, at('/campaigns'))).toEqual({ kind: 'wait' });
  });

  it('renders the page with a session', () => {
    expect(decideProtectedRoute({ status: 'success', session }, at('/campaigns'))).toEqual({
      kind: 'render',
      session,
    });
  });

  it('sends a signed-out visitor to sign in, and back here afterwards', () => {
    expect(
      decideProtectedRoute({ status: 'success', session: null }, at('/audit-log', '?page=2')),
    ).toEqual({ kind: 'redirect', to: '/?next=%2Faudit-log%3Fpage%3D2' });
  });

  it('does the same when the session expired', () => {
    expect(
      decideProtectedRoute({ status: 'success', session: null }, at('/api-keys'), 'expired'),
    ).toEqual({ kind: 'redirect', to: '/?next=%2Fapi-keys' });
  });

  it('sends a user who signed out to the plain sign-in page', () => {
    expect(
      decideProtectedRoute({ status: 'success', session: null }, at('/api-keys'), 'signed-out'),
    ).toEqual({ kind: 'redirect', to: '/' });
  });

  it('shows the error when the session could not be checked', () => {
    const error = new Error('down');
    expect(decideProtectedRoute({ status: 'error', error }, at('/campaigns'))).toEqual({
      kind: 'error',
      error,
    });
  });
});

describe('decideSignInRoute', () => {
  it('sends a signed-in user on to the page asked for', () => {
    expect(decideSignInRoute({ status: 'success', session }, '?next=%2Faudit-log')).toEqual({
      kind: 'redirect',
      to: '/audit-log',
    });
  });

  it('sends a signed-in user home by default', () => {
    expect(decideSignInRoute({ status: 'success', session }, '')).toEqual({
      kind: 'redirect',
      to: HOME_PATH,
    });
  });

  it('shows the form when signed out, and also when the check failed', () => {
    expect(decideSignInRoute({ status: 'success', session: null }, '')).toEqual({
      kind: 'form',
      checkError: null,
    });
    const error = new Error('down');
    expect(decideSignInRoute({ status: 'error', error }, '')).toEqual({
      kind: 'form',
      checkError: error,
    });
  });
});
