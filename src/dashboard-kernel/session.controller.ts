import { Body, Delete, Get, HttpCode, OnModuleInit, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import { SignInLimiter } from '../rate-limit';
import {
  MAX_EMAIL_LENGTH,
  MAX_PASSWORD_LENGTH,
  SessionsService,
  UsersService,
  type SessionUser,
} from '../users';
import { DashboardAccess, DashboardController } from './dashboard-access';
import { DashboardErrorResponses } from './dashboard-error-responses';
import {
  CurrentSession,
  type DashboardRequest,
  type DashboardSessionContext,
} from './dashboard-request';
import { SessionResponseDto, SignInRequestDto, type SessionResponse } from './session.dto';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from './session-cookie';

/** The one answer to every refused sign-in (docs/dashboard.md#sessions). */
const SIGN_IN_REFUSED = 'The email or password is not correct';

function sessionResponse(user: SessionUser, csrfToken: string): SessionResponse {
  return {
    user: { id: user.id, account_id: user.accountId, email: user.email, role: user.role },
    csrf_token: csrfToken,
  };
}

const CSRF_HEADER_DOC = {
  name: 'X-CSRF-Token',
  required: true,
  description: 'The session’s `csrf_token` (docs: cross-site request forgery)',
};

/**
 * `POST`, `GET` and `DELETE /dashboard/api/session`: sign in, who am I, sign out
 * (docs/dashboard.md#sessions). Every sign-in, succeeded or failed, and every sign-out is
 * recorded in the audit log with the client IP (docs/dashboard.md#audit-log) by the users and
 * sessions services; never a password.
 */
@ApiTags('session')
@DashboardController('session')
export class SessionController implements OnModuleInit {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly limiter: SignInLimiter,
    private readonly config: AppConfig,
  ) {}

  /** Makes the dummy hash now, so the first sign-in with an unknown email is not slower. */
  async onModuleInit(): Promise<void> {
    await this.users.prepareSignIn();
  }

  /**
   * Signs in with `{email, password}`: a new session (the previous one of this browser ends),
   * its cookie, and `{user, csrf_token}`. Checks, in order: the CSRF rules with the token
   * `sign-in` (403, by the guard), the body (400), the attempt limits per IP, per email and
   * IP, and per email unless the user signed in from this IP recently (429;
   * docs/security.md#sign-in-guessing), the credentials (401, the same for a wrong email, a
   * wrong password and a disabled user).
   */
  @Post()
  @HttpCode(200)
  @DashboardAccess('sign-in')
  @ApiOperation({ summary: 'Sign in', operationId: 'signIn' })
  @ApiHeader({ ...CSRF_HEADER_DOC, description: 'Always `sign-in`', enum: ['sign-in'] })
  @ApiBody({ type: SignInRequestDto })
  @ApiOkResponse({
    type: SessionResponseDto,
    description:
      'Signed in; `Set-Cookie: campaign_api_session=…` (HttpOnly, SameSite=Lax, Path=/dashboard)',
  })
  @DashboardErrorResponses(400, 401, 403, 415, 429, 500, 503)
  async signIn(
    @Body() body: Record<string, unknown>,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionResponse> {
    const { email, password } = body;
    if (typeof email !== 'string' || [...email].length > MAX_EMAIL_LENGTH) {
      throw ApiError.badRequest(`email must be a string of at most ${MAX_EMAIL_LENGTH} characters`);
    }
    if (typeof password !== 'string' || [...password].length > MAX_PASSWORD_LENGTH) {
      throw ApiError.badRequest(
        `password must be a string of at most ${MAX_PASSWORD_LENGTH} characters`,
      );
    }
    const retryAfter = await this.limiter.hit(request.ip, email, () =>
      this.sessions.signedInRecentlyFrom(email, request.ip),
    );
    if (retryAfter > 0) {
      throw new ApiError(
        429,
        'rate_limited',
        `Too many sign-in attempts; retry after ${retryAfter} s`,
        { 'Retry-After': String(retryAfter) },
      );
    }
    const check = await this.users.checkSignIn(email, password, request.ip);
    if (!check.ok) {
      throw new ApiError(401, 'unauthorized', SIGN_IN_REFUSED);
    }
    const { user } = check;
    // A new session id at every sign-in: whatever session this browser had ends now.
    await this.sessions.end(readSessionCookie(request.headers.cookie), 'replaced');
    const started = await this.sessions.start(user, request.ip);
    await this.limiter.succeeded(request.ip, email);
    void reply.header(
      'set-cookie',
      sessionCookie(started.token, this.config.dashboardInsecureCookies),
    );
    return sessionResponse(user, started.csrfToken);
  }

  /** `{user, csrf_token}` of the current session; 401 without one. */
  @Get()
  @DashboardAccess('any')
  @ApiOperation({ summary: 'The signed-in user and the CSRF token', operationId: 'getSession' })
  @ApiOkResponse({ type: SessionResponseDto, description: 'The current session' })
  @DashboardErrorResponses(401, 500, 503)
  current(@CurrentSession() session: DashboardSessionContext): SessionResponse {
    return sessionResponse(session.user, session.csrfToken);
  }

  /** Signs out: ends the session and clears its cookie. */
  @Delete()
  @HttpCode(204)
  @DashboardAccess('any')
  @ApiOperation({ summary: 'Sign out', operationId: 'signOut' })
  @ApiHeader(CSRF_HEADER_DOC)
  @ApiNoContentResponse({ description: 'Signed out; the cookie is cleared' })
  @DashboardErrorResponses(401, 403, 500, 503)
  async signOut(
    @CurrentSession() session: DashboardSessionContext,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.sessions.signOut(session, request.ip);
    void reply.header('set-cookie', clearedSessionCookie(this.config.dashboardInsecureCookies));
  }
}
