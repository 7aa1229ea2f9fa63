import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { LEAD_FIELDS, type LeadField } from '../upload';

/** One invalid lead of an upload (docs/api.md#lead-upload). */
@ApiSchema({ name: 'LeadUploadError' })
export class LeadUploadErrorDto {
  @ApiProperty({
    description: '0-based index in the request leads array',
    type: 'integer',
    minimum: 0,
    example: 3,
  })
  row!: number;

  @ApiProperty({ description: 'The field that failed', enum: LEAD_FIELDS, example: 'phone' })
  var_field!: LeadField;

  @ApiProperty({ example: 'phone is not a valid phone number' })
  message!: string;
}

/**
 * 202 body of `POST /leads/upload` (docs/api.md#lead-upload, docs/api.md#duplicates-and-counts). Always
 * `received_count = valid_count + invalid_count` and `errors.length = invalid_count`;
 * leads created = `valid_count - duplicate_count`.
 */
@ApiSchema({ name: 'LeadUploadResponse' })
export class LeadUploadResponseDto {
  @ApiProperty({ enum: ['accepted'], example: 'accepted' })
  status!: 'accepted';

  @ApiProperty({
    description: 'Id of the import (UUID)',
    format: 'uuid',
    example: '0b9c2f4e-6a1d-4c8e-9f57-2d3a1b7c9e10',
  })
  import_id!: string;

  @ApiProperty({ type: 'integer', example: 3 })
  received_count!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Leads that passed validation (duplicates skipped included)',
    example: 2,
  })
  valid_count!: number;

  @ApiProperty({ type: 'integer', example: 1 })
  invalid_count!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Valid leads skipped because the campaign already had the phone',
    example: 0,
  })
  duplicate_count!: number;

  @ApiProperty({ type: [LeadUploadErrorDto], description: 'One entry per invalid lead, by row' })
  errors!: LeadUploadErrorDto[];
}

/** The 202 body. */
export type LeadUploadResponse = LeadUploadResponseDto;
/** One entry of `errors`. */
export type LeadUploadError = LeadUploadErrorDto;
