import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { LEAD_FIELDS } from '..';

/** The API key that made an import. */
@ApiSchema({ name: 'ImportApiKey' })
export class ImportApiKeyDto {
  @ApiProperty({ type: 'integer', example: 3 })
  id!: number;

  @ApiProperty({ type: 'string', nullable: true, example: 'CRM sync' })
  name!: string | null;

  @ApiProperty({
    description: 'The start of the key, as the key list shows it',
    example: 'ck_live_4f9a',
  })
  prefix!: string;
}

/** The dashboard user who imported a spreadsheet. */
@ApiSchema({ name: 'ImportUser' })
export class ImportUserDto {
  @ApiProperty({ type: 'integer', example: 5 })
  id!: number;

  @ApiProperty({ example: 'ada@example.com' })
  email!: string;
}

/** One import and its compliance record (docs/dashboard.md#imports). */
@ApiSchema({ name: 'LeadImport' })
export class LeadImportDto {
  @ApiProperty({ format: 'uuid', description: 'The upload’s `import_id`' })
  id!: string;

  @ApiProperty({ type: 'integer' })
  campaign_id!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({
    type: ImportApiKeyDto,
    nullable: true,
    description: 'The API key that uploaded (null for a chunk of a spreadsheet import)',
  })
  api_key!: ImportApiKeyDto | null;

  @ApiProperty({
    type: ImportUserDto,
    nullable: true,
    description: 'The dashboard user who imported a spreadsheet (null for an API upload)',
  })
  user!: ImportUserDto | null;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The spreadsheet import this import is a chunk of (null for an API upload)',
  })
  spreadsheet_import_id!: string | null;

  @ApiProperty({ example: 'crm-sync' })
  source!: string;

  @ApiProperty({ type: [String], example: ['spring'] })
  tags!: string[];

  @ApiProperty({ example: 'v1.0' })
  disclaimer_version!: string;

  @ApiProperty({ format: 'date-time' })
  compliance_acknowledged_at!: string;

  @ApiProperty({ type: 'string', nullable: true, example: '203.0.113.7' })
  client_ip!: string | null;

  @ApiProperty({
    type: 'integer',
    description: 'Rows read: `new_count + duplicate_count + invalid_count`',
  })
  received_count!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Valid leads, as the upload’s `202` answered: the new leads and the duplicates skipped (`new_count + duplicate_count`)',
  })
  valid_count!: number;

  @ApiProperty({ type: 'integer', description: 'Rows rejected (see the rejected rows)' })
  invalid_count!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Duplicates skipped: valid leads whose phone the campaign already had',
  })
  duplicate_count!: number;

  @ApiProperty({
    type: 'integer',
    description: 'New leads stored: `valid_count − duplicate_count`',
  })
  new_count!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Rejected rows still kept (0 once retention removed them)',
  })
  rejected_rows_kept!: number;
}

/** A page of a campaign's imports, newest first. */
@ApiSchema({ name: 'LeadImportPage' })
export class LeadImportPageDto {
  @ApiProperty({ type: [LeadImportDto] })
  items!: LeadImportDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page',
  })
  next_cursor!: string | null;
}

/** One rejected row of an import. */
@ApiSchema({ name: 'ImportRejection' })
export class ImportRejectionDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: '0-based index in the upload’s `leads`',
  })
  row!: number;

  @ApiProperty({ enum: LEAD_FIELDS, example: 'phone' })
  field!: string;

  @ApiProperty({ example: 'phone is not a valid phone number' })
  message!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The lead’s fields as submitted (strings cut to 1,000 characters)',
    example: { phone: '12345', first_name: 'Ada' },
  })
  submitted!: Record<string, unknown>;
}

/** A page of an import's rejected rows, by row. */
@ApiSchema({ name: 'ImportRejectionPage' })
export class ImportRejectionPageDto {
  @ApiProperty({ type: [ImportRejectionDto] })
  items!: ImportRejectionDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page',
  })
  next_cursor!: string | null;
}
