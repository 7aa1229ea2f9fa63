import { createHash } from 'node:crypto';
import IORedis from 'ioredis';
import type request from 'supertest';
import { Clock } from '../src/common/clock';
import { DeploymentIdentity } from '../src/database/deployment-identity';
import { UsersService } from '../src/users/users.service';
import { SIGN_IN_WINDOW_MS } from '../src/rate-limit/sign-in.limiter';
import { SESSION_IDLE_TIMEOUT_MS, SESSION_MAX_LIFETIME_MS } from '../src/users/session-tokens';
import { COOKIE, givenUser, SESSION, setCookie, signIn, type GivenUser } from './support/dashboard';
import { eventually, sleep } from './support/eventually';
import { startTestApp, type TestApp } from './support/test-app';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const MINUTE = 60_000;
const LOOPBACK = ['127.0.0.1', '::ffff:127.0.0.1', '::1'];
/** `TRUST_PROXY` for tests that play clients at other addresses through `X-Forwarded-For`. */
const TRUSTED_LOOPBACK = '127.0.0.1,::1';

/** The headers two answers must share to be "the same answer": all but per-request ones. */
function comparableHeaders(res: request.Response): Record<string, unknown> {
  const { date: _date, 'x-request-id': _id, ...rest } = res.headers;
  return rest;
}

describe('Dashboard sign-in and sessions (docs/dashboard.md#sessions)', () => {
  let t: TestApp;
  let clock: Clock;
  /** The time the app sees; null: the real time. */
  let frozen: Date | null = null;
  /** Every secret a test handled: none may ever appear in the audit log. */
  const secrets: string[] = [];

  beforeAll(async () => {
    // Sign-ins come from 127.0.0.1 unless a test names another client with X-Forwarded-For
    // (believed from loopback only); the per-IP limit has its own test app.
    t = await startTestApp({
      RUN_WORKER: 'false',
      RATE_LIMIT_SIGN_IN_PER_IP: '1000000',
      TRUST_PROXY: TRUSTED_LOOPBACK,
    });
    clock = t.app.get(Clock);
    jest.spyOn(clock, 'now').mockImplementation(() => (frozen ? new Date(frozen) : new Date()));
  });
  afterEach(() => {
    frozen = null;
  });
  afterAll(async () => {
    // The audit log never holds a password, a session token or a CSRF token.
    const rows: Array<{ row: string }> = await t.db.query(
      `SELECT audit_log_entry::text AS row FROM audit_log_entry`,
    );
    expect(rows.length).toBeGreaterThan(10);
    for (const { row } of rows) {
      for (const secret of secrets) expect(row).not.toContain(secret);
    }
    await t.close();
  });

  const user = async (role: 'admin' | 'viewer' = 'admin', accountId?: number) => {
    const given = await givenUser(t, role, accountId);
    secrets.push(given.password);
    return given;
  };
  const session = async (credentials: { email: string; password: string }, headers = {}) => {
    const signedIn = await signIn(t, credentials, headers);
    secrets.push(signedIn.token, signedIn.csrf, sha256(signedIn.token));
    return signedIn;
  };
  const me = (cookie?: string) => {
    const req = t.http().get(SESSION);
    return cookie === undefined ? req : req.set('Cookie', cookie);
  };
  const attempt = (email: string, password: string) =>
    t.http().post(SESSION).set('X-CSRF-Token', 'sign-in').send({ email, password });
  const sessionRows = (userId: number): Promise<Array<Record<string, unknown>>> =>
    t.db.query(
      `SELECT id, token_hash, created_at, last_seen_at, expires_at, ended_at, end_reason, host(ip) AS ip
         FROM dashboard_session WHERE user_id = $1 ORDER BY id`,
      [userId],
    );
  const auditRows = (where: string, params: unknown[]): Promise<Array<Record<string, unknown>>> =>
    t.db.query(
      `SELECT account_id, actor_type, actor_user_id, actor_email, host(ip) AS ip, action,
              object_type, object_id, details
         FROM audit_log_entry WHERE ${where} ORDER BY id`,
      params,
    );
  const counts = async () =>
    (
      await t.db.query(
        `SELECT (SELECT count(*) FROM dashboard_session)::int AS sessions,
                (SELECT count(*) FROM dashboard_session WHERE ended_at IS NOT NULL)::int AS ended,
                (SELECT count(*) FROM audit_log_entry)::int AS audit`,
      )
    )[0] as { sessions: number; ended: number; audit: number };

  describe('signing in', () => {
    it('starts a session: the cookie, {user, csrf_token}, only the token’s hash stored, an audit entry', async () => {
      const viewer = await user('viewer');
      const signedIn = await session({ email: viewer.email, password: viewer.password });
      const { response, token, csrf } = signedIn;

      expect(response.body).toEqual({
        user: { id: viewer.id, account_id: viewer.accountId, email: viewer.email, role: 'viewer' },
        csrf_token: csrf,
      });
      expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The cookie: 256 random bits, HttpOnly, SameSite=Lax, Path=/dashboard, Secure; no lifetime.
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(setCookie(response)!.attributes).toEqual([
        'Path=/dashboard',
        'HttpOnly',
        'SameSite=Lax',
        'Secure',
      ]);

      const [row] = await sessionRows(viewer.id);
      expect(row).toMatchObject({ token_hash: sha256(token), ended_at: null, end_reason: null });
      expect(LOOPBACK).toContain(row.ip);
      expect((row.last_seen_at as Date).getTime()).toBe((row.created_at as Date).getTime());
      expect((row.expires_at as Date).getTime() - (row.created_at as Date).getTime()).toBe(
        12 * 60 * MINUTE,
      );
      const raw: Array<{ row: string }> = await t.db.query(
        `SELECT dashboard_session::text AS row FROM dashboard_session WHERE user_id = $1`,
        [viewer.id],
      );
      expect(raw[0].row).not.toContain(token);
      expect(raw[0].row).not.toContain(csrf);

      expect(
        await auditRows(`action = 'session.sign_in' AND actor_user_id = $1`, [viewer.id]),
      ).toEqual([
        {
          account_id: viewer.accountId,
          actor_type: 'user',
          actor_user_id: viewer.id,
          actor_email: viewer.email,
          ip: expect.stringMatching(/127\.0\.0\.1|::1/),
          action: 'session.sign_in',
          object_type: 'session',
          object_id: String(row.id),
          details: {},
        },
      ]);

      const current = await me(signedIn.cookie).expect(200);
      expect(current.body).toEqual(response.body);
    });

    it('takes the email in any case and with surrounding spaces', async () => {
      const admin = await user();
      const signedIn = await session({
        email: `  ${admin.email.toUpperCase()} `,
        password: admin.password,
      });
      expect(signedIn.response.body.user).toMatchObject({ id: admin.id, email: admin.email });
    });

    it('answers a wrong password, an unknown email and a disabled user identically, and records each', async () => {
      const admin = await user();
      const disabled = await user('admin', admin.accountId);
      await t.app.get(UsersService).disable(disabled.id);
      const unknown = `nobody-${admin.id}@example.com`;
      const wrongPassword = 'not-the-password-at-all';
      secrets.push(wrongPassword);

      const answers = [
        await attempt(admin.email, wrongPassword),
        await attempt(unknown, admin.password),
        await attempt(disabled.email, disabled.password),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(401);
        expect(answer.body).toEqual({
          error: 'unauthorized',
          message: 'The email or password is not correct',
        });
        expect(answer.headers['set-cookie']).toBeUndefined();
        expect(answer.headers['www-authenticate']).toBeUndefined();
        expect(comparableHeaders(answer)).toEqual(comparableHeaders(answers[0]));
      }
      expect(await sessionRows(admin.id)).toEqual([]);
      expect(await sessionRows(disabled.id)).toEqual([]);

      const failures = await auditRows(
        `action = 'session.sign_in_failed' AND actor_email IN ($1, $2, $3)`,
        [admin.email, unknown, disabled.email],
      );
      expect(failures).toEqual([
        expect.objectContaining({
          account_id: admin.accountId,
          actor_type: 'user',
          actor_user_id: null,
          actor_email: admin.email,
          object_type: 'user',
          object_id: String(admin.id),
          details: { reason: 'wrong_password' },
        }),
        expect.objectContaining({
          account_id: null,
          actor_user_id: null,
          actor_email: unknown,
          object_type: null,
          object_id: null,
          details: { reason: 'unknown_email' },
        }),
        expect.objectContaining({
          account_id: disabled.accountId,
          actor_email: disabled.email,
          object_id: String(disabled.id),
          details: { reason: 'disabled' },
        }),
      ]);
      for (const failure of failures) expect(LOOPBACK).toContain(failure.ip);
    });

    it.each([
      ['no email', { password: 'whatever-long-enough' }, /email must be a string/],
      ['no password', { email: 'a@example.com' }, /password must be a string/],
      ['a number as email', { email: 7, password: 'whatever-long-enough' }, /email must be/],
      ['an array as password', { email: 'a@example.com', password: ['x'] }, /password must be/],
      [
        'a password over 1024 characters',
        { email: 'a@example.com', password: 'x'.repeat(1025) },
        /at most 1024 characters/,
      ],
    ])(
      'refuses %s with 400 before counting or recording anything',
      async (_case, body, message) => {
        const before = await counts();
        const res = await t
          .http()
          .post(SESSION)
          .set('X-CSRF-Token', 'sign-in')
          .send(body)
          .expect(400);
        expect(res.body).toEqual({ error: 'bad_request', message: expect.stringMatching(message) });
        expect(await counts()).toEqual(before);
      },
    );

    it('starts a new session id every time and ends the one the browser had', async () => {
      const admin = await user();
      const first = await session(admin);
      const second = await session(admin, { Cookie: first.cookie });
      expect(second.token).not.toBe(first.token);
      expect(second.csrf).not.toBe(first.csrf);
      await me(first.cookie).expect(401);
      await me(second.cookie).expect(200);
      const rows = await sessionRows(admin.id);
      expect(rows.map((row) => [row.token_hash, row.end_reason, row.ended_at !== null])).toEqual([
        [sha256(first.token), 'replaced', true],
        [sha256(second.token), null, false],
      ]);
    });

    it('sends the cookie without Secure only when DASHBOARD_INSECURE_COOKIES=true', async () => {
      const insecure = await startTestApp({
        RUN_WORKER: 'false',
        DASHBOARD_INSECURE_COOKIES: 'true',
      });
      try {
        const admin = await givenUser(insecure);
        const res = await insecure
          .http()
          .post(SESSION)
          .set('X-CSRF-Token', 'sign-in')
          .send({ email: admin.email, password: admin.password })
          .expect(200);
        expect(setCookie(res)!.attributes).toEqual(['Path=/dashboard', 'HttpOnly', 'SameSite=Lax']);
      } finally {
        await insecure.close();
      }
    });
  });

  describe('the session', () => {
    it('GET answers 401 without a valid session, and tells the browser to drop a bad cookie', async () => {
      const none = await me().expect(401);
      expect(none.body).toEqual({
        error: 'unauthorized',
        message: 'Sign in to the dashboard first',
      });
      expect(none.headers['www-authenticate']).toBeUndefined();
      expect(none.headers['set-cookie']).toBeUndefined();
      for (const cookie of [`${COOKIE}=garbage`, `${COOKIE}=${'A'.repeat(43)}`, `${COOKIE}=`]) {
        const res = await me(cookie).expect(401);
        expect(res.body.error).toBe('unauthorized');
        expect(setCookie(res)).toEqual({
          value: '',
          attributes: expect.arrayContaining(['Max-Age=0', 'Path=/dashboard', 'HttpOnly']),
        });
      }
    });

    it('signing out ends it, clears the cookie and is recorded', async () => {
      const admin = await user();
      const signedIn = await session(admin);
      const out = await t
        .http()
        .delete(SESSION)
        .set('Cookie', signedIn.cookie)
        .set('X-CSRF-Token', signedIn.csrf)
        .expect(204);
      expect(out.text).toBe('');
      expect(setCookie(out)!.value).toBe('');
      expect(setCookie(out)!.attributes).toContain('Max-Age=0');
      await me(signedIn.cookie).expect(401);
      await t
        .http()
        .delete(SESSION)
        .set('Cookie', signedIn.cookie)
        .set('X-CSRF-Token', signedIn.csrf)
        .expect(401);
      const [row] = await sessionRows(admin.id);
      expect(row).toMatchObject({ end_reason: 'sign_out', ended_at: expect.any(Date) });
      expect(
        await auditRows(`action = 'session.sign_out' AND actor_user_id = $1`, [admin.id]),
      ).toEqual([
        expect.objectContaining({
          account_id: admin.accountId,
          actor_email: admin.email,
          object_type: 'session',
          object_id: String(row.id),
        }),
      ]);
    });

    it('ends after 30 minutes without a request, recording requests at most once a minute', async () => {
      const admin = await user();
      const start = Date.now();
      const at = (ms: number) => (frozen = new Date(start + ms));
      at(0);
      const signedIn = await session(admin);
      const lastSeen = async () =>
        ((await sessionRows(admin.id))[0].last_seen_at as Date).getTime();

      at(30_000);
      await me(signedIn.cookie).expect(200);
      await sleep(200);
      expect(await lastSeen()).toBe(start); // within the minute: not written

      at(29 * MINUTE);
      await me(signedIn.cookie).expect(200);
      await eventually(async () => expect(await lastSeen()).toBe(start + 29 * MINUTE));

      at(29 * MINUTE + SESSION_IDLE_TIMEOUT_MS - 1000);
      await me(signedIn.cookie).expect(200);
      await eventually(async () =>
        expect(await lastSeen()).toBe(start + 29 * MINUTE + SESSION_IDLE_TIMEOUT_MS - 1000),
      );

      at(29 * MINUTE + 2 * SESSION_IDLE_TIMEOUT_MS - 1000);
      await me(signedIn.cookie).expect(401);
      const [row] = await sessionRows(admin.id);
      expect(row).toMatchObject({ end_reason: 'idle' });
      expect((row.ended_at as Date).getTime()).toBe(frozen!.getTime());
      // Ended stays ended, even if the clock went back.
      at(30 * MINUTE);
      await me(signedIn.cookie).expect(401);
    });

    it('ends 12 hours after sign-in however busy it is', async () => {
      const admin = await user();
      const start = Date.now();
      const at = (ms: number) => (frozen = new Date(start + ms));
      at(0);
      const signedIn = await session(admin);
      for (let elapsed = 20 * MINUTE; elapsed < SESSION_MAX_LIFETIME_MS; elapsed += 20 * MINUTE) {
        at(elapsed);
        await me(signedIn.cookie).expect(200);
        await eventually(async () =>
          expect(((await sessionRows(admin.id))[0].last_seen_at as Date).getTime()).toBe(
            start + elapsed,
          ),
        );
      }
      at(SESSION_MAX_LIFETIME_MS - 1);
      await me(signedIn.cookie).expect(200);
      at(SESSION_MAX_LIFETIME_MS);
      await me(signedIn.cookie).expect(401);
      expect((await sessionRows(admin.id))[0]).toMatchObject({ end_reason: 'expired' });
    });

    it('ends when the password is reset or the user disabled', async () => {
      const users = t.app.get(UsersService);
      const admin = await user();
      const other = await session(await user('admin', admin.accountId));
      const first = await session(admin);
      const second = await session(admin);

      const newPassword = 'a brand new password';
      secrets.push(newPassword);
      await users.resetPassword(admin.id, newPassword);
      await me(first.cookie).expect(401);
      await me(second.cookie).expect(401);
      await me(other.cookie).expect(200);
      expect((await sessionRows(admin.id)).map((row) => row.end_reason)).toEqual([
        'password_reset',
        'password_reset',
      ]);
      await attempt(admin.email, admin.password).expect(401);
      const third = await session({ email: admin.email, password: newPassword });

      await users.disable(admin.id);
      await me(third.cookie).expect(401);
      expect((await sessionRows(admin.id)).map((row) => row.end_reason)).toEqual([
        'password_reset',
        'password_reset',
        'disabled',
      ]);
      await attempt(admin.email, newPassword).expect(401);
      await me(other.cookie).expect(200);
    });
  });

  describe('cross-site request forgery (docs/dashboard.md#cross-site-request-forgery)', () => {
    it.each([
      ['no X-CSRF-Token', {}],
      ['a wrong X-CSRF-Token', { 'X-CSRF-Token': 'sign-out' }],
      ['a foreign Origin', { 'X-CSRF-Token': 'sign-in', Origin: 'https://evil.example' }],
      ['Origin: null', { 'X-CSRF-Token': 'sign-in', Origin: 'null' }],
      ['another scheme', { 'X-CSRF-Token': 'sign-in', Origin: 'https://dash.example.com' }],
      ['Sec-Fetch-Site: cross-site', { 'X-CSRF-Token': 'sign-in', 'Sec-Fetch-Site': 'cross-site' }],
      ['Sec-Fetch-Site: same-site', { 'X-CSRF-Token': 'sign-in', 'Sec-Fetch-Site': 'same-site' }],
    ])('refuses a sign-in with %s (403), changing nothing', async (_case, headers) => {
      const admin = await user();
      const before = await counts();
      const res = await t
        .http()
        .post(SESSION)
        .set('Host', 'dash.example.com')
        .set(headers)
        .send({ email: admin.email, password: admin.password })
        .expect(403);
      expect(res.body).toEqual({ error: 'forbidden', message: expect.any(String) });
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(await counts()).toEqual(before);
    });

    it('accepts a sign-in from its own origin', async () => {
      const admin = await user();
      await session(admin, {
        Host: 'dash.example.com',
        Origin: 'http://dash.example.com',
        'Sec-Fetch-Site': 'same-origin',
      });
    });

    it('refuses a sign-out without the session’s token or from another origin (403), and the session stays', async () => {
      const admin = await user();
      const mine = await session(admin);
      const theirs = await session(await user());
      for (const headers of [
        {},
        { 'X-CSRF-Token': 'sign-in' },
        { 'X-CSRF-Token': theirs.csrf },
        { 'X-CSRF-Token': mine.token },
        { 'X-CSRF-Token': mine.csrf, Origin: 'https://evil.example' },
        { 'X-CSRF-Token': mine.csrf, 'Sec-Fetch-Site': 'cross-site' },
      ]) {
        const before = await counts();
        const res = await t
          .http()
          .delete(SESSION)
          .set('Cookie', mine.cookie)
          .set(headers)
          .expect(403);
        expect(res.body.error).toBe('forbidden');
        expect(await counts()).toEqual(before);
        await me(mine.cookie).expect(200);
      }
    });
  });

  describe('sign-in limits', () => {
    const lockedOut = (res: request.Response) => {
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        error: 'rate_limited',
        message: expect.stringMatching(/^Too many sign-in attempts; retry after \d+ s$/),
      });
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(SIGN_IN_WINDOW_MS / 1000 - 60);
      expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_WINDOW_MS / 1000);
      return res.body.message.replace(/\d+/, 'N') as string;
    };

    it('refuses an email from one address after 10 attempts there in 15 minutes, with one answer whether a user has it or not', async () => {
      const admin = await user();
      const unknown = `ghost-${admin.id}@example.com`;
      for (let i = 0; i < 10; i++) {
        await attempt(admin.email, `wrong password ${i}`).expect(401);
        await attempt(unknown, `wrong password ${i}`).expect(401);
      }
      const known = lockedOut(await attempt(admin.email, 'wrong password again'));
      const ghost = lockedOut(await attempt(unknown, 'wrong password again'));
      expect(known).toBe(ghost);
      // Even the right password, in any case of the email: the limit comes first.
      lockedOut(await attempt(admin.email.toUpperCase(), admin.password));
      // Refused attempts are not recorded (the log does not grow at the attacker's pace).
      expect(
        await auditRows(`action = 'session.sign_in_failed' AND actor_email = $1`, [admin.email]),
      ).toHaveLength(10);
      // Another email from the same address is not affected.
      const other = await user();
      await session(other);
    });

    it('forgets an address’s attempts at an email once that email signs in from there', async () => {
      const admin = await user();
      for (let i = 0; i < 9; i++) await attempt(admin.email, `wrong ${i}`).expect(401);
      await session(admin);
      for (let i = 0; i < 10; i++) await attempt(admin.email, `wrong ${i}`).expect(401);
      lockedOut(await attempt(admin.email, 'wrong again'));
    });

    it('lets the right password in from a clean address while the address that failed 10 times stays refused', async () => {
      const admin = await user();
      const guesser = '203.0.113.10';
      const owner = '198.51.100.20';
      const from = (ip: string, password: string) =>
        attempt(admin.email, password).set('X-Forwarded-For', ip);
      for (let i = 0; i < 10; i++) await from(guesser, `wrong password ${i}`).expect(401);

      // The guesser's address is refused, even with the right password: it proves nothing there.
      lockedOut(await from(guesser, admin.password));
      expect(await sessionRows(admin.id)).toEqual([]);
      // However long it keeps trying: refused attempts do not use up the email's total (30).
      for (let i = 0; i < 25; i++) lockedOut(await from(guesser, `wrong again ${i}`));

      // The owner, at an address without failures, signs in: a session exists, from there.
      const signedIn = await session(admin, { 'X-Forwarded-For': owner });
      expect(await sessionRows(admin.id)).toEqual([
        expect.objectContaining({
          token_hash: sha256(signedIn.token),
          ended_at: null,
          end_reason: null,
          ip: owner,
        }),
      ]);
      await me(signedIn.cookie).expect(200);

      // Signing in at one address does not reopen another.
      lockedOut(await from(guesser, admin.password));
      expect(
        (await auditRows(`action LIKE 'session.sign_in%' AND actor_email = $1`, [admin.email])).map(
          (row) => [row.action, row.ip],
        ),
      ).toEqual([
        ...Array.from({ length: 10 }, () => ['session.sign_in_failed', guesser]),
        ['session.sign_in', owner],
      ]);
    });

    it('caps an email’s attempts from all addresses and all processes; past it only an address its user signed in from may try', async () => {
      // Two API processes sharing one Redis namespace, as in production, with small limits:
      // 3 attempts per email and address, 6 per email.
      const env = {
        RUN_WORKER: 'false',
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-sign-in`,
        TRUST_PROXY: TRUSTED_LOOPBACK,
        RATE_LIMIT_SIGN_IN_PER_IP: '1000000',
        RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP: '3',
        RATE_LIMIT_SIGN_IN_PER_EMAIL: '6',
      };
      const processes = [await startTestApp(env), await startTestApp(env)];
      try {
        const [one, two] = processes;
        const owner: GivenUser = await givenUser(one);
        const ghost = `ghost-${owner.id}@example.com`;
        const home = '198.51.100.7';
        const from = (app: TestApp, ip: string, email: string, password: string) =>
          app
            .http()
            .post(SESSION)
            .set('X-CSRF-Token', 'sign-in')
            .set('X-Forwarded-For', ip)
            .send({ email, password });
        const sessionIps = async () =>
          (
            await one.db.query(
              `SELECT host(ip) AS ip FROM dashboard_session WHERE user_id = $1 ORDER BY id`,
              [owner.id],
            )
          ).map((row: { ip: string }) => row.ip);

        // The owner signs in at home (attempt 1 of 6): from now on a known address.
        await from(one, home, owner.email, owner.password).expect(200);
        // One guess from each of five addresses, over both processes (attempts 2 to 6): each
        // address is far below its own limit of 3.
        for (let i = 1; i <= 5; i++) {
          await from(processes[i % 2], `203.0.113.${i}`, owner.email, `guess ${i}`).expect(401);
        }
        // The email's limit is reached: a guess from a sixth address is refused unchecked…
        const capped = lockedOut(await from(two, '203.0.113.6', owner.email, 'guess 6'));
        // …and so is the right password from an address the owner never signed in from.
        lockedOut(await from(one, '203.0.113.7', owner.email, owner.password));
        // At home it still signs in, on either process.
        await from(two, home, owner.email, owner.password).expect(200);
        expect(await sessionIps()).toEqual([home, home]);
        // Refused attempts are not recorded; the five guesses are, with their addresses.
        const failures: Array<{ ip: string }> = await one.db.query(
          `SELECT host(ip) AS ip FROM audit_log_entry
            WHERE action = 'session.sign_in_failed' AND actor_email = $1 ORDER BY id`,
          [owner.email],
        );
        expect(failures.map((row) => row.ip)).toEqual([1, 2, 3, 4, 5].map((i) => `203.0.113.${i}`));

        // An email no user has reaches its limit the same way and answers the same.
        for (let i = 1; i <= 6; i++) {
          await from(processes[i % 2], `192.0.2.${i}`, ghost, `guess ${i}`).expect(401);
        }
        expect(lockedOut(await from(one, '192.0.2.7', ghost, 'guess 7'))).toBe(capped);

        // A home is known only for sign-ins with the current password: after a reset, home
        // counts as any other address until the owner signs in again.
        const { password_changed_at } = await one.app
          .get(UsersService)
          .resetPassword(owner.id, 'a new password, long enough');
        expect(password_changed_at).toBeInstanceOf(Date);
        lockedOut(await from(one, home, owner.email, 'a new password, long enough'));
        expect(await sessionIps()).toEqual([home, home]);

        // No email is stored in Redis in clear: counters are named by hashes.
        const redis = new IORedis(one.config.redisUrl, { lazyConnect: true });
        try {
          await redis.connect();
          const prefix = one.app.get(DeploymentIdentity).queuePrefix;
          const keys = await redis.keys(`${prefix}:rate:sign-in:*`);
          expect(keys.length).toBeGreaterThan(0);
          for (const key of keys) {
            expect(key.toLowerCase()).not.toContain(owner.email.toLowerCase());
            expect(key).not.toContain(ghost);
          }
        } finally {
          redis.disconnect();
        }
      } finally {
        for (const app of processes) await app.close();
      }
    });

    it('fails open without Redis, as every limit does: the right password after 12 wrong ones signs in', async () => {
      const offline = await startTestApp({
        RUN_WORKER: 'false',
        REDIS_URL: 'redis://127.0.0.1:1',
        RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP: '2',
        RATE_LIMIT_SIGN_IN_PER_EMAIL: '3',
        RATE_LIMIT_SIGN_IN_PER_IP: '4',
      });
      try {
        const admin: GivenUser = await givenUser(offline);
        const tryOnce = (password: string) =>
          offline
            .http()
            .post(SESSION)
            .set('X-CSRF-Token', 'sign-in')
            .send({ email: admin.email, password });
        for (let i = 0; i < 12; i++) await tryOnce(`wrong ${i}`).expect(401);
        await tryOnce(admin.password).expect(200);
        const sessions: Array<{ count: number }> = await offline.db.query(
          `SELECT count(*)::int AS count FROM dashboard_session WHERE user_id = $1`,
          [admin.id],
        );
        expect(sessions).toEqual([{ count: 1 }]);
      } finally {
        await offline.close();
      }
    });

    it('limits attempts per client IP (RATE_LIMIT_SIGN_IN_PER_IP)', async () => {
      const limited = await startTestApp({ RUN_WORKER: 'false', RATE_LIMIT_SIGN_IN_PER_IP: '3' });
      try {
        const admin: GivenUser = await givenUser(limited);
        const tryOnce = (email: string, password: string) =>
          limited.http().post(SESSION).set('X-CSRF-Token', 'sign-in').send({ email, password });
        for (let i = 0; i < 3; i++)
          await tryOnce(`someone-${i}@example.com`, 'password!!!!').expect(401);
        lockedOut(await tryOnce('someone-else@example.com', 'password!!!!'));
        lockedOut(await tryOnce(admin.email, admin.password));
      } finally {
        await limited.close();
      }
    });
  });

  describe('the dashboard’s place in the service', () => {
    it('is outside /api/v1: no bearer token opens it, no session cookie opens the API', async () => {
      const caller = await t.given.caller();
      const admin = await user('admin', caller.accountId);
      const signedIn = await session(admin);
      await t
        .http()
        .get('/api/v1/dashboard/api/session')
        .set('Cookie', signedIn.cookie)
        .expect(404);
      await me().set('Authorization', `Bearer ${caller.token}`).expect(401);
      await t
        .http()
        .get(`/api/v1/webhooks/${caller.campaignId}/events`)
        .set('Cookie', signedIn.cookie)
        .expect(401);
    });

    it('has its own OpenAPI 3.1 document; the public one leaves the dashboard out', async () => {
      const dashboard = await t.http().get('/dashboard/api/docs-json').expect(200);
      // 3.1 like the public document: nullable fields as type arrays, never 3.0's `nullable`.
      expect(dashboard.body.openapi).toBe('3.1.0');
      expect(JSON.stringify(dashboard.body)).not.toContain('"nullable"');
      // The resource routes are test/dashboard-resources.e2e-spec.ts's.
      expect(Object.keys(dashboard.body.paths)).toContain(SESSION);
      const operations = dashboard.body.paths[SESSION];
      expect(Object.keys(operations).sort()).toEqual(['delete', 'get', 'post']);
      expect(operations.post.security).toEqual([]);
      expect(operations.get.security).toEqual([{ session: [] }]);
      expect(operations.delete.security).toEqual([{ session: [] }]);
      expect(dashboard.body.components.securitySchemes.session).toEqual({
        type: 'apiKey',
        in: 'cookie',
        name: 'campaign_api_session',
      });
      const api = await t.http().get('/api/docs-json').expect(200);
      expect(Object.keys(api.body.paths).some((path) => path.startsWith('/dashboard'))).toBe(false);
      expect(Object.keys(api.body.components.schemas)).not.toContain('SignInRequest');
    });

    it('allows no cross-origin request, even with CORS_ORIGINS set', async () => {
      const cors = await startTestApp({
        RUN_WORKER: 'false',
        CORS_ORIGINS: 'https://app.example.com',
      });
      try {
        const preflight = (path: string) =>
          cors
            .http()
            .options(path)
            .set('Origin', 'https://app.example.com')
            .set('Access-Control-Request-Method', 'POST')
            .set('Access-Control-Request-Headers', 'x-csrf-token,content-type');
        const api = await preflight('/api/v1/leads/upload');
        expect(api.headers['access-control-allow-origin']).toBe('https://app.example.com');
        const dashboard = await preflight(SESSION);
        expect(dashboard.headers['access-control-allow-origin']).toBeUndefined();
        expect(dashboard.headers['access-control-allow-headers']).toBeUndefined();
      } finally {
        await cors.close();
      }
    });
  });
});
