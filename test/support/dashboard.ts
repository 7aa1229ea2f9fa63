import type request from 'supertest';
import type { TestApp } from './test-app';
import { UsersService } from '../../src/users/users.service';
import type { DashboardRole } from '../../src/users/dashboard-roles.constants';

/** The dashboard API's session route (docs/dashboard.md#sessions). */
export const SESSION = '/dashboard/api/session';
export const COOKIE = 'campaign_api_session';

/** A dashboard user made through the service the CLI uses, with a known password. */
export interface GivenUser {
  id: number;
  accountId: number;
  email: string;
  password: string;
  role: DashboardRole;
}

let sequence = 0;

/** A user of `accountId` (a new account when not given) with role `role`. */
export async function givenUser(
  t: TestApp,
  role: DashboardRole = 'admin',
  accountId?: number,
): Promise<GivenUser> {
  const account = accountId ?? (await t.given.account());
  const email = `User.${process.pid}-${++sequence}@Example.com`;
  const password = `pw-${process.pid}-${sequence}-correct horse`;
  const { user } = await t.app.get(UsersService).create(account, email, role, password);
  return { id: user.id, accountId: account, email, password, role };
}

/** A signed-in session: the cookie's token and the CSRF token. */
export interface SignedIn {
  token: string;
  csrf: string;
  cookie: string;
  response: request.Response;
}

/** The value of cookie `name` in a response's `Set-Cookie` headers, with its attributes. */
export function setCookie(
  response: request.Response,
  name = COOKIE,
): { value: string; attributes: string[] } | undefined {
  const headers = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  for (const header of headers) {
    const [pair, ...attributes] = header.split(';').map((part) => part.trim());
    const separator = pair.indexOf('=');
    if (pair.slice(0, separator) === name) {
      return { value: pair.slice(separator + 1), attributes };
    }
  }
  return undefined;
}

/** Signs in over HTTP as `user` (or with `email`/`password`); expects 200. */
export async function signIn(
  t: TestApp,
  credentials: { email: string; password: string },
  extraHeaders: Record<string, string> = {},
): Promise<SignedIn> {
  const response = await t
    .http()
    .post(SESSION)
    .set('X-CSRF-Token', 'sign-in')
    .set(extraHeaders)
    .send({ email: credentials.email, password: credentials.password })
    .expect(200);
  const token = setCookie(response)!.value;
  return {
    token,
    csrf: response.body.csrf_token as string,
    cookie: `${COOKIE}=${token}`,
    response,
  };
}
