import { clearedSessionCookie, readSessionCookie, sessionCookie } from './session-cookie';

describe('the session cookie (docs/dashboard.md#sessions)', () => {
  const token = 'VZ_N91WH5d59R9kLT7Leao4bsxKfJiuGqyJO4ijkf44';

  it('is HttpOnly, SameSite=Lax, Path=/dashboard, and Secure unless insecure cookies are on', () => {
    expect(sessionCookie(token, false)).toBe(
      `campaign_api_session=${token}; Path=/dashboard; HttpOnly; SameSite=Lax; Secure`,
    );
    expect(sessionCookie(token, true)).toBe(
      `campaign_api_session=${token}; Path=/dashboard; HttpOnly; SameSite=Lax`,
    );
    expect(() => sessionCookie('a;b', false)).toThrow();
    expect(clearedSessionCookie(false)).toMatch(
      /^campaign_api_session=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=\/dashboard; HttpOnly; SameSite=Lax; Secure$/,
    );
  });

  it('is read from the Cookie header, the first one when there are several', () => {
    expect(readSessionCookie(undefined)).toBeUndefined();
    expect(readSessionCookie('')).toBeUndefined();
    expect(readSessionCookie('other=1')).toBeUndefined();
    expect(readSessionCookie(`campaign_api_session=${token}`)).toBe(token);
    expect(readSessionCookie(`a=1; campaign_api_session=${token}; b=2`)).toBe(token);
    expect(readSessionCookie(`campaign_api_session="${token}"`)).toBe(token);
    expect(readSessionCookie(`campaign_api_session=first;campaign_api_session=second`)).toBe(
      'first',
    );
    expect(readSessionCookie('xcampaign_api_session=1; campaign_api_session_x=2')).toBeUndefined();
    expect(readSessionCookie('campaign_api_session')).toBeUndefined();
  });
});
