import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/api-error';
import { ApiKeysService } from './api-keys.service';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from './auth-principal';
import type { ApiKeyTokenResponse } from './dto/api-key-token.dto';

/** Exchanges an API key for a short-lived bearer JWT (docs/api.md#authentication). */
@Injectable()
export class TokenService {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  /**
   * @param apiKey the plaintext key from the request body.
   * @returns an HS256 JWT with claims `sub` (key id), `acc`, `iat`, `exp`, `jti`, `iss`, `aud`.
   * @throws ApiError 401 for an unknown or revoked key (the same answer for both).
   */
  async exchange(apiKey: string): Promise<ApiKeyTokenResponse> {
    const key = await this.apiKeys.findActiveByKey(apiKey);
    if (!key) throw ApiError.unauthorized('The API key is not valid');
    // Synchronous: HMAC-SHA256 of a few hundred bytes takes microseconds, less than a deferral.
    const accessToken = this.jwt.sign(
      { acc: key.accountId },
      {
        subject: String(key.id),
        jwtid: randomUUID(),
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        expiresIn: this.config.tokenTtlSeconds,
      },
    );
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: this.config.tokenTtlSeconds,
    };
  }
}
