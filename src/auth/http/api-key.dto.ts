import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsArray, IsInt, IsOptional, IsString, Min } from 'class-validator';

/** An API key as listed (docs/dashboard.md#routes): never the key or its hash. */
@ApiSchema({ name: 'DashboardApiKey' })
export class DashboardApiKeyDto {
  @ApiProperty({ type: 'integer', example: 3 })
  id!: number;

  @ApiProperty({
    description: 'The key’s first 12 characters, to recognise it',
    example: 'capi_Zm9vYmF',
  })
  key_prefix!: string;

  @ApiProperty({ type: 'integer', example: 1 })
  account_id!: number;

  @ApiProperty({ type: 'string', nullable: true, example: 'CRM import' })
  name!: string | null;

  @ApiProperty({
    type: 'integer',
    isArray: true,
    nullable: true,
    description: 'The campaigns it may use; null for every campaign of the account',
    example: [42],
  })
  campaign_ids!: number[] | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  revoked_at!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Its last token exchange, to the minute',
  })
  last_used_at!: string | null;
}

/** Body of `POST /dashboard/api/api-keys`. */
@ApiSchema({ name: 'CreateApiKeyRequest' })
export class CreateApiKeyRequestDto {
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 200, example: 'CRM import' })
  @IsOptional()
  @IsString()
  name?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    isArray: true,
    nullable: true,
    minItems: 1,
    description: 'Limit the key to these campaigns of the account; absent or null: every campaign',
    example: [42],
  })
  @IsOptional()
  @IsArray()
  @IsInt({ each: true })
  @Min(1, { each: true })
  campaign_ids?: number[] | null;
}

/** Answer of `POST /dashboard/api/api-keys`: the key, shown this once. */
@ApiSchema({ name: 'CreatedApiKey' })
export class CreatedApiKeyDto extends DashboardApiKeyDto {
  @ApiProperty({
    description: 'The API key: shown now and never again (only its SHA-256 is stored)',
    example: 'capi_Zm9vYmFyYmF6cXV4cXV1eGZvb2JhcmJhenF1eHF1dXg',
  })
  api_key!: string;
}

/** Answer of `POST /dashboard/api/api-keys/{id}/revoke`. */
@ApiSchema({ name: 'RevokedApiKey' })
export class RevokedApiKeyDto {
  @ApiProperty({ type: 'integer', example: 3 })
  id!: number;

  @ApiProperty({
    format: 'date-time',
    description: 'When it was revoked (the first revocation, if it already was)',
  })
  revoked_at!: string;
}
