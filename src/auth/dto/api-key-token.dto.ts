import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of `POST /auth/api-key/token` (spec 2.5). Unknown fields are ignored. */
export class ApiKeyTokenRequestDto {
  @IsString({ message: 'api_key must be a string' })
  @IsNotEmpty({ message: 'api_key is required' })
  @MaxLength(512, { message: 'api_key is too long' })
  api_key!: string;
}

/** 200 response of the token exchange (spec 2.6, CONTRACT 3). */
export interface ApiKeyTokenResponse {
  access_token: string;
  token_type: 'bearer';
  /** Seconds until the token expires (`TOKEN_TTL_SECONDS`, default 900). */
  expires_in: number;
}
