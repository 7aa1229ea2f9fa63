import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  Allow,
  IsArray,
  IsBoolean,
  IsOptional,
  IsString,
  MaxLength,
  ArrayMaxSize,
} from 'class-validator';
import { DEFAULT_DISCLAIMER_VERSION, DEFAULT_SOURCE, SPREADSHEET_IMPORT_STATUSES } from '..';
import { ImportUserDto } from './lead-import.dto';

// Spreadsheet imports' schemas (docs/dashboard.md#spreadsheet-imports). The mapping is checked
// against the file by `SpreadsheetImports` (lead fields to distinct column indexes, phone
// required), so the DTOs check only the other fields' types and lengths.

/** Lead field → 0-based column index; `phone` is required. */
const MAPPING_SCHEMA = {
  type: 'object',
  description: 'Lead field → 0-based column index of the file; `phone` is required',
  properties: {
    phone: { type: 'integer', minimum: 0 },
    email: { type: 'integer', minimum: 0 },
    first_name: { type: 'integer', minimum: 0 },
    last_name: { type: 'integer', minimum: 0 },
    company: { type: 'integer', minimum: 0 },
    title: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
  example: { phone: 0, first_name: 1, email: 3 },
} as const;

/** A list item: an import without its file's header row, sample rows and suggested mapping. */
@ApiSchema({ name: 'SpreadsheetImportSummary' })
export class SpreadsheetImportSummaryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ type: 'integer' })
  campaign_id!: number;

  @ApiProperty({ type: ImportUserDto, description: 'Who uploaded the file' })
  user!: ImportUserDto;

  @ApiProperty({ example: 'crm-export.csv' })
  file_name!: string;

  @ApiProperty({ enum: ['csv', 'xlsx'] })
  format!: string;

  @ApiProperty({ type: 'integer', description: 'Bytes' })
  size_bytes!: number;

  @ApiProperty({ type: 'integer', description: 'Non-blank data rows (the header row not counted)' })
  total_rows!: number;

  @ApiProperty({ enum: SPREADSHEET_IMPORT_STATUSES })
  status!: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'While `uploaded`: when the upload is discarded with its file unless it is started (`SPREADSHEET_UPLOAD_TTL` after `created_at`); null once started',
  })
  discard_at!: string | null;

  @ApiProperty({
    ...MAPPING_SCHEMA,
    nullable: true,
    description: 'The mapping it was started with',
  })
  mapping!: Record<string, number> | null;

  @ApiProperty({ type: 'string', nullable: true })
  source!: string | null;

  @ApiProperty({ type: [String], nullable: true })
  tags!: string[] | null;

  @ApiProperty({ type: 'boolean', nullable: true })
  skip_duplicates!: boolean | null;

  @ApiProperty({ type: 'string', nullable: true })
  disclaimer_version!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  compliance_acknowledged_at!: string | null;

  @ApiProperty({
    type: 'integer',
    description: 'Data rows imported so far: `new_count + duplicate_count + invalid_count`',
  })
  rows_read!: number;

  @ApiProperty({ type: 'integer', description: 'Chunks imported so far (each an import)' })
  chunks_imported!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Valid leads so far: the new leads and the duplicates skipped',
  })
  valid_count!: number;

  @ApiProperty({ type: 'integer', description: 'Rows rejected so far' })
  invalid_count!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Duplicates skipped so far: valid leads whose phone the campaign already had',
  })
  duplicate_count!: number;

  @ApiProperty({
    type: 'integer',
    description: 'New leads stored so far: `valid_count − duplicate_count`',
  })
  new_count!: number;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why it failed' })
  error!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  started_at!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  finished_at!: string | null;
}

/** One import, as its own read answers it: a list item with the file's header and sample rows. */
@ApiSchema({ name: 'SpreadsheetImport' })
export class SpreadsheetImportDto extends SpreadsheetImportSummaryDto {
  @ApiProperty({ type: [String], description: 'The header row’s cells' })
  headers!: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'array', items: { type: 'string' } },
    description: 'The first data rows, as text',
  })
  sample_rows!: string[][];

  @ApiProperty({ ...MAPPING_SCHEMA, description: 'The mapping the headers suggest' })
  suggested_mapping!: Record<string, number>;
}

/** Body of `POST /spreadsheet-imports/{import_id}/preview`. */
@ApiSchema({ name: 'SpreadsheetPreviewRequest' })
export class SpreadsheetPreviewRequestDto {
  @ApiProperty(MAPPING_SCHEMA)
  @Allow()
  mapping!: unknown;
}

@ApiSchema({ name: 'SpreadsheetPreviewLead' })
class PreviewLeadDto {
  @ApiProperty({ example: '+14155550100' })
  phone!: string;
  @ApiProperty({ type: 'string', nullable: true })
  email!: string | null;
  @ApiProperty({ type: 'string', nullable: true })
  first_name!: string | null;
  @ApiProperty({ type: 'string', nullable: true })
  last_name!: string | null;
  @ApiProperty({ type: 'string', nullable: true })
  company!: string | null;
  @ApiProperty({ type: 'string', nullable: true })
  title!: string | null;
}

@ApiSchema({ name: 'SpreadsheetPreviewError' })
class PreviewErrorDto {
  @ApiProperty({ example: 'phone' })
  field!: string;
  @ApiProperty({ example: 'phone is not a valid number for region US' })
  message!: string;
}

@ApiSchema({ name: 'SpreadsheetPreviewRow' })
export class SpreadsheetPreviewRowDto {
  @ApiProperty({ type: 'integer', description: 'Row in the file (the header is row 1)' })
  row!: number;
  @ApiProperty({
    type: PreviewLeadDto,
    nullable: true,
    description: 'The lead as it would be stored',
  })
  lead!: PreviewLeadDto | null;
  @ApiProperty({ type: PreviewErrorDto, nullable: true, description: 'Its first problem' })
  error!: PreviewErrorDto | null;
}

@ApiSchema({ name: 'SpreadsheetPreview' })
export class SpreadsheetPreviewDto {
  @ApiProperty({ type: [SpreadsheetPreviewRowDto] })
  rows!: SpreadsheetPreviewRowDto[];
}

/** Body of `POST /spreadsheet-imports/{import_id}/start`. */
@ApiSchema({ name: 'StartSpreadsheetImportRequest' })
export class StartSpreadsheetImportRequestDto {
  @ApiProperty(MAPPING_SCHEMA)
  @Allow()
  mapping!: unknown;

  @ApiProperty({
    enum: [true],
    description: 'Must be true: confirms permission to upload the contacts',
  })
  @Allow()
  compliance_acknowledged!: unknown;

  @ApiPropertyOptional({ maxLength: 32, default: DEFAULT_DISCLAIMER_VERSION })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  disclaimer_version?: string;

  @ApiPropertyOptional({ maxLength: 100, default: DEFAULT_SOURCE.spreadsheet })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  source?: string;

  @ApiPropertyOptional({ type: [String], maxItems: 50, default: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  skip_duplicates?: boolean;
}
