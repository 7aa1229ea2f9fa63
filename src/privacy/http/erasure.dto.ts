import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { ErasureCounts } from '..';

/** Body of `POST /erasure-requests` (docs/privacy.md#erasure): one person, by phone and/or email. */
@ApiSchema({ name: 'ErasureRequest' })
export class ErasureRequestDto {
  @ApiPropertyOptional({
    description: 'Erase in this campaign only; absent: in every campaign of the account',
    type: 'integer',
    minimum: 1,
  })
  campaign_id?: number;

  @ApiPropertyOptional({
    description: 'The phone in any format uploads accept (normalised like uploads)',
    example: '+1 415-555-0199',
    maxLength: 64,
  })
  phone?: string;

  @ApiPropertyOptional({ example: 'alice@acme.com', maxLength: 320 })
  email?: string;

  @ApiPropertyOptional({
    description:
      "Region (ISO 3166-1 alpha-2) for a phone without +, when no campaign is named (a campaign's own region is used otherwise)",
    example: 'US',
  })
  region?: string;

  @ApiPropertyOptional({
    description: "Add the phone and email to the account's suppression list (default true)",
    default: true,
  })
  add_to_suppression_list?: boolean;
}

/** What one erasure removed, per kind of record. */
@ApiSchema({ name: 'ErasureCounts' })
export class ErasureCountsDto implements ErasureCounts {
  @ApiProperty({ type: 'integer' }) leads!: number;
  @ApiProperty({ type: 'integer' }) import_rejections!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Spreadsheet imports cancelled or whose sample was emptied',
  })
  spreadsheet_imports!: number;
  @ApiProperty({ type: 'integer', description: 'Events whose body was redacted' }) events!: number;
  @ApiProperty({ type: 'integer', description: 'Deliveries not sent yet, now skipped (erased)' })
  deliveries_cancelled!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Attempts whose stored request and answer were redacted',
  })
  attempts!: number;
  @ApiProperty({ type: 'integer' }) idempotency_records!: number;
  @ApiProperty({ type: 'integer', description: 'Entries added to the suppression list' })
  suppression_entries!: number;
}

/** An erasure receipt (docs/privacy.md#erasure-receipts): the person only as keyed hashes. */
@ApiSchema({ name: 'ErasureReceipt' })
export class ErasureReceiptDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'integer', nullable: true }) campaign_id!: number | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ example: 'api_key:12', description: '`user:<id>`, `cli` or `api_key:<id>`' })
  requested_by!: string;
  @ApiProperty() suppressed!: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: 'HMAC-SHA-256 of the phone, hex' })
  phone_hash!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'HMAC-SHA-256 of the email, hex' })
  email_hash!: string | null;
  @ApiProperty({ type: 'integer', description: 'The id of the hash key' }) key_id!: number;
  @ApiProperty({ type: ErasureCountsDto }) counts!: ErasureCountsDto;
}
