import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { EVENT_TYPES } from '../../webhooks';

// An endpoint's transformation (docs/dashboard.md#transformations): bodies are typed here, the
// code is checked by the domain (`EndpointTransformations`, the sandbox).

const MAX_CODE_BYTES_TEXT = 'at most 64 KiB of UTF-8';

/** Body of `PUT /dashboard/api/endpoints/{endpoint_id}/transformation`. */
@ApiSchema({ name: 'SaveTransformationRequest' })
export class SaveTransformationRequestDto {
  @ApiProperty({
    description: `JavaScript defining \`function handler(webhook) { …; return webhook; }\` (${MAX_CODE_BYTES_TEXT})`,
    example:
      'function handler(webhook) {\n  webhook.payload = { properties: { phone: webhook.payload.data.phone } };\n  return webhook;\n}',
  })
  @IsString()
  code!: string;
}

/** Body of `POST /dashboard/api/endpoints/{endpoint_id}/transformation/restore`. */
@ApiSchema({ name: 'RestoreTransformationRequest' })
export class RestoreTransformationRequestDto {
  @ApiProperty({ minimum: 1, description: 'The saved version whose code becomes the next version' })
  @IsInt()
  version!: number;
}

/** Body of `POST /dashboard/api/endpoints/{endpoint_id}/transformation/run`. */
@ApiSchema({ name: 'RunTransformationRequest' })
export class RunTransformationRequestDto {
  @ApiPropertyOptional({
    description: 'The code to run (not saved); absent: the version in force',
  })
  @IsOptional()
  @IsString()
  code?: string;

  @ApiPropertyOptional({
    enum: EVENT_TYPES,
    description: 'Run on this type’s example (the default: `lead.created`)',
  })
  @IsOptional()
  @IsString()
  event_type?: string;

  @ApiPropertyOptional({
    minimum: 1,
    description: 'Run on this past delivery of the endpoint instead of an example',
  })
  @IsOptional()
  @IsInt()
  delivery_id?: number;
}

/** One saved version, as the history lists it. */
@ApiSchema({ name: 'TransformationVersionSummary' })
export class TransformationVersionSummaryDto {
  @ApiProperty({ minimum: 1 })
  version!: number;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The dashboard user’s email, or `cli`',
  })
  created_by!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The version it restored, when saved by a restore',
  })
  restored_from!: number | null;

  @ApiProperty({ description: 'Its size in UTF-8 bytes' })
  bytes!: number;
}

/** One saved version with its code. */
@ApiSchema({ name: 'TransformationVersion' })
export class TransformationVersionDto extends TransformationVersionSummaryDto {
  @ApiProperty()
  code!: string;
}

/** An endpoint's transformation: the version in force and the history. */
@ApiSchema({ name: 'TransformationState' })
export class TransformationStateDto {
  @ApiProperty()
  endpoint_id!: number;

  @ApiProperty({
    type: TransformationVersionDto,
    nullable: true,
    description: 'The version in force; null when requests are sent as the events are',
  })
  current!: TransformationVersionDto | null;

  @ApiProperty({
    type: [TransformationVersionSummaryDto],
    description: 'The latest 100 versions, newest first',
  })
  versions!: TransformationVersionSummaryDto[];
}

/** Where a trial run's input came from. */
@ApiSchema({ name: 'TransformationTrialSource' })
export class TransformationTrialSourceDto {
  @ApiProperty({ enum: ['example', 'delivery'] })
  kind!: 'example' | 'delivery';

  @ApiProperty({ enum: EVENT_TYPES })
  event_type!: string;

  @ApiProperty({ type: 'integer', nullable: true })
  delivery_id!: number | null;

  @ApiProperty({ description: 'The webhook-id the request would carry' })
  webhook_id!: string;
}

/** The request a transformation would send, as the delivery log shows one. */
@ApiSchema({ name: 'TransformedRequest' })
export class TransformedRequestDto {
  @ApiProperty({ enum: ['POST', 'PUT', 'PATCH'] })
  method!: 'POST' | 'PUT' | 'PATCH';

  @ApiProperty()
  url!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'All headers, in order: signatures truncated, secret header values `[redacted]`',
  })
  headers!: Record<string, string>;

  @ApiProperty({ description: 'The exact body that would be signed and sent' })
  body!: string;
}

/** Why a transformation failed. */
@ApiSchema({ name: 'TransformationError' })
export class TransformationErrorDto {
  @ApiProperty({
    description:
      'syntax, no_handler, throw, timeout, memory, stack, output_too_large, code_too_large or shape',
  })
  kind!: string;

  @ApiProperty()
  message!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: '1-based line in the code' })
  line!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: '1-based column' })
  column!: number | null;
}

/** Answer of a trial run: the request, `cancelled` (the code returned null) or the error. */
@ApiSchema({ name: 'TransformationTrial' })
export class TransformationTrialDto {
  @ApiProperty({ type: TransformationTrialSourceDto })
  source!: TransformationTrialSourceDto;

  @ApiProperty({ description: 'The version run; 0 for code not saved' })
  version!: number;

  @ApiProperty({ description: 'ms the run took' })
  duration_ms!: number;

  @ApiProperty({ enum: ['request', 'cancelled', 'error'] })
  outcome!: 'request' | 'cancelled' | 'error';

  @ApiProperty({ type: TransformedRequestDto, nullable: true })
  request!: TransformedRequestDto | null;

  @ApiProperty({ type: TransformationErrorDto, nullable: true })
  error!: TransformationErrorDto | null;
}
