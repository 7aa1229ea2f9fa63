import { Injectable } from '@nestjs/common';
import passport from 'passport';
import { ApiError } from '../common/api-error';
import { isDatabaseUnavailableError } from '../common/database-errors';
import type { AuthPrincipal } from './auth-principal';

/**
 * Verifies `Authorization: Bearer <jwt>` with the passport-jwt strategy (`JwtStrategy`: HS256
 * pinned, issuer, audience, expiry, lifetime, key not revoked), outside Nest's guard pipeline,
 * so the `onRequest` hook can run it before a request's body is read (docs/security.md).
 */
@Injectable()
export class BearerAuthenticator {
  /**
   * @param request any object with `headers` (the Fastify request).
   * @returns the caller's principal.
   * @throws ApiError 401 for a missing, malformed, forged, expired or revoked token; a
   *   database outage while checking the key propagates (503), it is not a bad token.
   */
  authenticate(request: { headers: Record<string, unknown> }): Promise<AuthPrincipal> {
    return new Promise((resolve, reject) => {
      const verify = passport.authenticate(
        'jwt',
        { session: false },
        (error: unknown, user: AuthPrincipal | false, info: unknown) => {
          if (error) return reject(asAuthenticationError(error));
          if (!user) return reject(ApiError.unauthorized(describeFailure(info)));
          resolve(user);
        },
      ) as (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
      try {
        verify(request, {}, (error?: unknown) => reject(asAuthenticationError(error)));
      } catch (error) {
        reject(asAuthenticationError(error));
      }
    });
  }
}

/**
 * Our own errors and database outages keep their meaning; anything else thrown while
 * verifying a token (e.g. jsonwebtoken failing on a signed payload that is not an object)
 * is a bad token: 401, never 500.
 */
function asAuthenticationError(error: unknown): unknown {
  return error instanceof ApiError || isDatabaseUnavailableError(error)
    ? error
    : ApiError.unauthorized('The bearer token is invalid');
}

function describeFailure(info: unknown): string {
  const name = (info as { name?: string } | undefined)?.name;
  if (name === 'TokenExpiredError')
    return 'The bearer token has expired; exchange the API key again';
  if (name === 'JsonWebTokenError' || name === 'NotBeforeError')
    return 'The bearer token is invalid';
  return 'A bearer token is required: Authorization: Bearer <access_token>';
}
