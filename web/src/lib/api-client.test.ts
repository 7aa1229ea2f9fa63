import { afterEach, describe, expect, it } from 'vitest';
import { json, stubFetch } from '../testing/fake-api';
import { createDashboardApi, CSRF_HEADER, setCsrfToken, SIGN_IN_CSRF_TOKEN } from './api-client';
import { ApiError } from './api-errors';

const ORIGIN = 'http://dashboard.test';

describe('the dashboard API client', () => {
  afterEach(() => setCsrfToken(null));

  it('resolves a success with its data, sending no CSRF header on a read', async () => {
    setCsrfToken('token-1');
    const { requests } = stubFetch(() =>
      json(200, {
        user: { id: 1, account_id: 2, email: 'a@b.c', role: 'viewer' },
        csrf_token: 't',
      }),
    );
    const { data } = await createDashboardApi(ORIGIN).GET('/dashboard/api/session');
    expect(data?.user.email).toBe('a@b.c');
    const [request] = requests();
    expect(request.url).toBe(`${ORIGIN}/dashboard/api/session`);
    expect(request.headers.get('accept')).toBe('application/json');
    expect(request.headers.has(CSRF_HEADER)).toBe(false);
  });

  it("adds the session's CSRF token to a state-changing request", async () => {
    setCsrfToken('token-1');
    const { requests } = stubFetch(() => new Response(null, { status: 204 }));
    await createDashboardApi(ORIGIN).DELETE('/dashboard/api/session');
    expect(requests()[0].method).toBe('DELETE');
    expect(requests()[0].headers.get(CSRF_HEADER)).toBe('token-1');
  });

  it('keeps a CSRF header the call set itself (the sign-in)', async () => {
    setCsrfToken('token-1');
    const { requests } = stubFetch(() => json(200, {}));
    await createDashboardApi(ORIGIN).POST('/dashboard/api/session', {
      body: { email: 'a@b.c', password: 'correct horse battery' },
      headers: { [CSRF_HEADER]: SIGN_IN_CSRF_TOKEN },
    });
    const [request] = requests();
    expect(request.headers.get(CSRF_HEADER)).toBe('sign-in');
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(await request.json()).toEqual({ email: 'a@b.c', password: 'correct horse battery' });
  });

  it('sends {} as the body of a POST that has none (the service takes JSON objects only)', async () => {
    setCsrfToken('token-1');
    const { requests } = stubFetch(() => json(200, {}));
    await createDashboardApi(ORIGIN).POST('/dashboard/api/session', {} as never);
    const [request] = requests();
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(request.headers.get(CSRF_HEADER)).toBe('token-1');
    expect(await request.text()).toBe('{}');
  });

  it("throws an error envelope as an ApiError with the envelope's code and message", async () => {
    stubFetch(() => json(401, { error: 'unauthorized', message: 'Wrong email or password' }));
    const call = createDashboardApi(ORIGIN).POST('/dashboard/api/session', {
      body: { email: 'a@b.c', password: 'nope' },
    });
    await expect(call).rejects.toEqual(
      expect.objectContaining({
        status: 401,
        code: 'unauthorized',
        message: 'Wrong email or password',
      }),
    );
    await expect(call).rejects.toBeInstanceOf(ApiError);
  });

  it('reads Retry-After of a 429', async () => {
    stubFetch(() =>
      json(
        429,
        { error: 'rate_limited', message: 'Too many sign-in attempts' },
        { 'retry-after': '42' },
      ),
    );
    await expect(createDashboardApi(ORIGIN).GET('/dashboard/api/session')).rejects.toEqual(
      expect.objectContaining({
        status: 429,
        retryAfterSeconds: 42,
        message: 'Too many sign-in attempts',
      }),
    );
  });

  it('gives a readable message when the body is not an envelope (a proxy error page)', async () => {
    stubFetch(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    await expect(createDashboardApi(ORIGIN).GET('/dashboard/api/session')).rejects.toEqual(
      expect.objectContaining({
        status: 502,
        code: 'internal_error',
        message: 'The service is unavailable right now. Try again in a moment.',
      }),
    );
  });

  it('turns a request that got no response into an ApiError with status 0', async () => {
    stubFetch(() => {
      throw new TypeError('Failed to fetch');
    });
    await expect(createDashboardApi(ORIGIN).GET('/dashboard/api/session')).rejects.toEqual(
      expect.objectContaining({ status: 0, code: 'network_error' }),
    );
  });

  it('lets an aborted request stay an abort', async () => {
    stubFetch(() => {
      throw new DOMException('The operation was aborted.', 'AbortError');
    });
    await expect(createDashboardApi(ORIGIN).GET('/dashboard/api/session')).rejects.toHaveProperty(
      'name',
      'AbortError',
    );
  });
});
