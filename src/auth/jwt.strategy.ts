import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/api-error';
import { ApiKeysService } from './api-keys.service';
import { AccessTokenClaims, AuthPrincipal, TOKEN_AUDIENCE, TOKEN_ISSUER } from './auth-principal';
import { jwtSigningKey } from './jwt-signing-key';

/**
 * passport-jwt strategy for `Authorization: Bearer <jwt>` (spec 5, CONTRACT 3): HS256 only
 * (`alg: none` and every other algorithm fail), issuer and audience checked, expiry enforced,
 * and the key behind the token must still exist and not be revoked.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    config: AppConfig,
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
   * Turns verified claims into the caller's principal.
   * @throws ApiError 401 when the claims are malformed or the key is unknown or revoked.
   */
  async validate(claims: Partial<AccessTokenClaims>): Promise<AuthPrincipal> {
    const apiKeyId =
      typeof claims.sub === 'string' && /^[1-9][0-9]{0,9}$/.test(claims.sub)
        ? Number(claims.sub)
        : null;
    if (apiKeyId === null || typeof claims.acc !== 'number' || typeof claims.exp !== 'number') {
      throw ApiError.unauthorized('The bearer token is invalid');
    }
    const access = await this.apiKeys.getAccess(apiKeyId);
    if (!access || access.revoked || access.accountId !== claims.acc) {
      throw ApiError.unauthorized('The API key behind this token has been revoked');
    }
    return { apiKeyId, accountId: access.accountId, campaignIds: access.campaignIds };
  }
}
