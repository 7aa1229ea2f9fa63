import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/api-error';
import { ApiKeysService } from './api-keys.service';
import { AccessTokenClaims, AuthPrincipal, TOKEN_AUDIENCE, TOKEN_ISSUER } from './auth-principal';
import { jwtSigningKey } from './jwt-signing-key';

/** Clock difference tolerated between the token's issuer and this process, in seconds. */
export const CLOCK_SKEW_SECONDS = 5;

/**
 * passport-jwt strategy for `Authorization: Bearer <jwt>` (docs/api.md#authentication): HS256 only
 * (`alg: none` and every other algorithm fail), issuer and audience checked, expiry enforced,
 * and the key behind the token must still exist and not be revoked.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    private readonly config: AppConfig,
    private readonly apiKeys: ApiKeysService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // jsonwebtoken accepts a KeyObject; the typings only name string | Buffer.
      secretOrKey: jwtSigningKey(config.jwtSecret) as unknown as Buffer,
      algorithms: ['HS256'],
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      ignoreExpiration: false,
    });
  }

  /**
   * Turns verified claims into the caller's principal. Besides the signature and expiry
   * (checked by passport-jwt), a token must have a numeric `iat` no more than
   * {@link CLOCK_SKEW_SECONDS} in the future and live no longer than `TOKEN_TTL_SECONDS`
   * (plus that skew), as every token this service issues does.
   * @throws ApiError 401 when the claims are malformed or the key is unknown or revoked.
   */
  async validate(claims: Partial<AccessTokenClaims> | null): Promise<AuthPrincipal> {
    // A signed payload need not be an object (`null`, a number): a bad token, not a TypeError.
    if (claims === null || typeof claims !== 'object') {
      throw ApiError.unauthorized('The bearer token is invalid');
    }
    const apiKeyId =
      typeof claims.sub === 'string' && /^[1-9][0-9]{0,9}$/.test(claims.sub)
        ? Number(claims.sub)
        : null;
    if (
      apiKeyId === null ||
      typeof claims.acc !== 'number' ||
      !this.hasIssuedLifetime(claims.iat, claims.exp)
    ) {
      throw ApiError.unauthorized('The bearer token is invalid');
    }
    const access = await this.apiKeys.getAccess(apiKeyId);
    if (!access || access.revoked || access.accountId !== claims.acc) {
      throw ApiError.unauthorized('The API key behind this token has been revoked');
    }
    return {
      apiKeyId,
      accountId: access.accountId,
      campaignIds: access.campaignIds,
      keyPrefix: access.keyPrefix,
    };
  }

  /** Whether `iat`/`exp` (seconds) are finite, not issued in the future, and at most a TTL apart. */
  private hasIssuedLifetime(iat: unknown, exp: unknown): boolean {
    if (typeof iat !== 'number' || typeof exp !== 'number') return false;
    if (!Number.isFinite(iat) || !Number.isFinite(exp)) return false;
    const now = Date.now() / 1000;
    return (
      iat <= now + CLOCK_SKEW_SECONDS &&
      exp - iat <= this.config.tokenTtlSeconds + CLOCK_SKEW_SECONDS
    );
  }
}
