import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import passport from 'passport';
import { ExtractJwt } from 'passport-jwt';
import { ApiError } from '../common/api-error';
import { isDatabaseUnavailableError } from '../common/database-errors';
import type { AccessTokenClaims, AuthPrincipal } from './auth-principal';
import { JwtStrategy } from './jwt.strategy';

/** Tokens whose signature, algorithm, issuer and audience one process remembers as checked. */
export const VERIFIED_TOKENS_MAX = 10_000;

const bearerToken = ExtractJwt.fromAuthHeaderAsBearerToken();

/**
 * Verifies `Authorization: Bearer <jwt>` with the passport-jwt strategy (`JwtStrategy`: HS256
 * pinned, issuer, audience, expiry, lifetime, key not revoked), outside Nest's guard pipeline,
 * so the `onRequest` hook can run it before a request's body is read (docs/security.md).
 *
 * A token string that passed once is remembered until it expires (at most
 * {@link VERIFIED_TOKENS_MAX} tokens, least recently used out): what its signature proved
 * cannot change, so a later request with the same token skips the signature check, and only
 * what can change is checked again every time — expiry, the claims' lifetime, and whether the
 * key behind it is still active (docs/api.md#bearer-tokens).
 */
@Injectable()
export class BearerAuthenticator {
  private readonly verified = new LRUCache<string, Partial<AccessTokenClaims>>({
    max: VERIFIED_TOKENS_MAX,
  });

  constructor(private readonly strategy: JwtStrategy) {}

  /**
   * @param request any object with `headers` (the Fastify request).
   * @returns the caller's principal.
   * @throws ApiError 401 for a missing, malformed, forged, expired or revoked token; a
   *   database outage while checking the key propagates (503), it is not a bad token.
   */
  authenticate(request: { headers: Record<string, unknown> }): Promise<AuthPrincipal> {
    const token = bearerToken(request as never);
    const claims = token ? this.verified.get(token) : undefined;
    if (claims !== undefined) {
      if (typeof claims.exp === 'number' && claims.exp * 1000 > Date.now()) {
        return this.strategy.validate(claims).catch((error: unknown) => {
          throw asAuthenticationError(error);
        });
      }
      this.verified.delete(token!);
      return Promise.reject(
        ApiError.unauthorized('The bearer token has expired; exchange the API key again'),
      );
    }
    return this.verify(request).then((principal) => {
      this.remember(token!);
      return principal;
    });
  }

  /** The whole check through passport-jwt. */
  private verify(request: { headers: Record<string, unknown> }): Promise<AuthPrincipal> {
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

  /** Remembers the claims of `token`, which passport-jwt has just verified, until it expires. */
  private remember(token: string): void {
    let claims: Partial<AccessTokenClaims> | null;
    try {
      const payload = token.split('.')[1];
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return; // not remembered: the next request is verified in full again
    }
    if (claims === null || typeof claims !== 'object' || typeof claims.exp !== 'number') return;
    const ttl = Math.floor(claims.exp * 1000 - Date.now());
    if (ttl > 0) this.verified.set(token, claims, { ttl });
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
