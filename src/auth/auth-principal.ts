/**
 * Who is calling, as established by the bearer guard from a verified JWT (docs/api.md#authentication).
 * `campaignIds` null means every campaign of the account.
 */
export interface AuthPrincipal {
  apiKeyId: number;
  accountId: number;
  campaignIds: number[] | null;
  /** The API key's first characters, as listed (never the key): for the audit log. */
  keyPrefix: string;
}

/** The JWT claims this service issues and accepts (docs/api.md#authentication). */
export interface AccessTokenClaims {
  /** API key id, as a decimal string. */
  sub: string;
  /** Account id. */
  acc: number;
  iat: number;
  exp: number;
  jti: string;
  iss: string;
  aud: string;
}

/** `iss` and `aud` of every token. */
export const TOKEN_ISSUER = 'campaign-api';
export const TOKEN_AUDIENCE = 'campaign-api';
