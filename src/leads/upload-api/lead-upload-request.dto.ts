import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { DEFAULT_DISCLAIMER_VERSION, DEFAULT_SOURCE } from '..';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsString,
  registerDecorator,
  ValidateIf,
  ValidationArguments,
} from 'class-validator';

/** Most leads in one upload (docs/api.md#the-upload-body). */
export const MAX_LEADS_PER_UPLOAD = 10_000;
/** How many bad `leads[i]` indices one 422 message names before summarising. */
const MAX_INDICES_NAMED = 10;

function nonObjectIndices(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  const indices: number[] = [];
  value.forEach((item, index) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) indices.push(index);
  });
  return indices;
}

/** Every element of the array must be a JSON object; the message names the bad indices. */
function EachIsObject(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'eachIsObject',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => nonObjectIndices(value).length === 0,
        defaultMessage: (args?: ValidationArguments) => {
          const indices = nonObjectIndices(args?.value);
          const named = indices
            .slice(0, MAX_INDICES_NAMED)
            .map((i) => `leads[${i}] must be an object`);
          const rest = indices.length - named.length;
          return rest > 0
            ? `${named.join('; ')}; and ${rest} more leads are not objects`
            : named.join('; ');
        },
      },
    });
}

/**
 * A rule on string values (arrays of them with `each`); values that are not strings pass
 * here, their type being another decorator's concern.
 */
function StringRule(
  name: string,
  message: string,
  ok: (value: string) => boolean,
  each = false,
): PropertyDecorator {
  const check = (value: unknown) => typeof value !== 'string' || ok(value);
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message },
      validator: {
        validate: (value: unknown) =>
          each && Array.isArray(value) ? value.every(check) : check(value),
      },
    });
}

/** PostgreSQL text cannot hold U+0000, so a stored string must not contain it. */
const NoNulCharacters = (message: string, each = false) =>
  StringRule('noNulCharacters', message, (value) => !value.includes('\u0000'), each);

/**
 * Length in Unicode code points, as PostgreSQL counts `varchar(n)` (class-validator's
 * `@Length` counts differently, e.g. skipping variation selectors, so a value it accepts
 * could still overflow the column).
 */
const CodePointLength = (min: number, max: number, message: string, each = false) =>
  StringRule(
    'codePointLength',
    message,
    (value) => {
      const length = [...value].length;
      return length >= min && length <= max;
    },
    each,
  );

const present = (field: string) =>
  ValidateIf((o: Record<string, unknown>) => o[field] !== undefined);

/** One lead of an upload (docs/api.md#lead-upload), as documented; its fields are checked per lead (docs/api.md#per-lead-validation). */
@ApiSchema({ name: 'LeadInput' })
export class LeadInputDto {
  @ApiProperty({
    description: 'Phone number; E.164 preferred, otherwise read in the campaign region',
    example: '+14155552671',
  })
  phone!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, example: 'Ada' })
  first_name?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, example: 'Lovelace' })
  last_name?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'Email address',
    example: 'ada@example.com',
  })
  email?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: 255,
    example: 'Analytical Engines Ltd',
  })
  company?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: 255,
    description: 'Job title',
    example: 'CTO',
  })
  title?: string | null;
}

/**
 * The envelope of `POST /leads/upload` (docs/api.md#lead-upload, docs/api.md#the-upload-body). A violation is 422
 * `validation_failed`; what is inside each lead object is checked per lead later (4.3).
 * `campaign_id` and `compliance_acknowledged` are checked earlier (guard, 400s) and only
 * allowed here. Optional fields may be absent but not null.
 */
@ApiSchema({ name: 'LeadUploadRequest' })
export class LeadUploadRequestDto {
  @ApiProperty({ description: 'Target campaign', type: 'integer', minimum: 1, example: 42 })
  @Allow()
  campaign_id!: number;

  @ApiProperty({
    description: 'Must be true: confirms permission to upload the contacts',
    enum: [true],
    example: true,
  })
  @Allow()
  compliance_acknowledged!: true;

  @ApiProperty({
    type: [LeadInputDto],
    minItems: 1,
    maxItems: MAX_LEADS_PER_UPLOAD,
    description: 'Leads to upload',
  })
  @IsArray({ message: 'leads must be an array' })
  @ArrayMinSize(1, { message: 'leads must contain at least 1 lead' })
  @ArrayMaxSize(MAX_LEADS_PER_UPLOAD, {
    message: `leads must contain at most ${MAX_LEADS_PER_UPLOAD} leads`,
  })
  @EachIsObject()
  leads!: Record<string, unknown>[];

  @ApiPropertyOptional({
    description: 'Upload source label',
    maxLength: 100,
    default: DEFAULT_SOURCE.api,
    example: 'crm-sync',
  })
  @present('source')
  @IsString({ message: 'source must be a string' })
  @CodePointLength(0, 100, 'source must be at most 100 characters')
  @NoNulCharacters('source must not contain NUL characters')
  source?: string;

  @ApiPropertyOptional({
    description: 'Tags applied to every lead of the batch',
    type: [String],
    maxItems: 50,
    default: [],
    example: ['spring', 'vip'],
  })
  @present('tags')
  @IsArray({ message: 'tags must be an array of strings' })
  @ArrayMaxSize(50, { message: 'tags must have at most 50 items' })
  @IsString({ each: true, message: 'tags must be an array of strings' })
  @CodePointLength(1, 64, 'each tag must be 1 to 64 characters', true)
  @NoNulCharacters('tags must not contain NUL characters', true)
  tags?: string[];

  @ApiPropertyOptional({
    description: 'When true, leads already in the campaign are skipped silently',
    default: true,
  })
  @present('skip_duplicates')
  @IsBoolean({ message: 'skip_duplicates must be a boolean' })
  skip_duplicates?: boolean;

  @ApiPropertyOptional({
    description: 'Version of the compliance disclaimer acknowledged',
    maxLength: 32,
    default: DEFAULT_DISCLAIMER_VERSION,
  })
  @present('disclaimer_version')
  @IsString({ message: 'disclaimer_version must be a string' })
  @CodePointLength(0, 32, 'disclaimer_version must be at most 32 characters')
  @NoNulCharacters('disclaimer_version must not contain NUL characters')
  disclaimer_version?: string;
}

/** An upload request after the envelope checks, with the spec's defaults applied. */
export interface LeadUploadRequest {
  campaign_id: number;
  leads: Record<string, unknown>[];
  source: string;
  tags: string[];
  skip_duplicates: boolean;
  disclaimer_version: string;
}
