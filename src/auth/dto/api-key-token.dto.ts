import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of `POST /auth/api-key/token` (docs/api.md#authentication). Unknown fields are ignored. */
@ApiSchema({ name: 'ApiKeyTokenRequest' })
export class ApiKeyTokenRequestDto {
  @ApiProperty({
    description: 'The API key, sent only here; never log it or keep it in client code',
    example: 'capi_Zm9vYmFyYmF6cXV4cXV1eGZvb2JhcmJhenF1eHF1dXg',
  })
  @IsString({ message: 'api_key must be a string' })
  @IsNotEmpty({ message: 'api_key is required' })
  @MaxLength(512, { message: 'api_key is too long' })
  api_key!: string;
}

/** 200 response of the token exchange (docs/api.md#authentication). */
@ApiSchema({ name: 'ApiKeyTokenResponse' })
export class ApiKeyTokenResponseDto {
  @ApiProperty({
    description: 'Short-lived bearer JWT (HS256)',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.sig',
  })
  access_token!: string;

  @ApiProperty({ description: 'Always "bearer"', enum: ['bearer'], example: 'bearer' })
  token_type!: 'bearer';

  @ApiProperty({ description: 'Seconds until the token expires', example: 900, type: 'integer' })
  expires_in!: number;
}

/** The token exchange's answer. */
export type ApiKeyTokenResponse = ApiKeyTokenResponseDto;
