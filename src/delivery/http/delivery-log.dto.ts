import { ApiExtraModels, ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { PageQueryDto } from '../../dashboard-kernel';
import { PING } from '../attempts';
import { EVENT_TYPES } from '../../webhooks';

// The delivery log's schemas (docs/dashboard.md#delivery-log). The shapes are the delivery
// domain's (`AttemptRecord`, `DeliveryLogPage`, `AttemptDetail`); the query's values are checked
// by `parseDeliveryLogQuery`, so the DTO below checks only that each parameter is given once.

/** One attempt of the delivery log. */
@ApiSchema({ name: 'DeliveryAttempt' })
export class DeliveryAttemptDto {
  @ApiProperty({ type: 'integer', example: 9120 })
  id!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The delivery it belongs to (for a redelivery); null for pings and test events',
    example: 3318,
  })
  delivery_id!: number | null;

  @ApiProperty({ type: 'integer', example: 7 })
  endpoint_id!: number;

  @ApiProperty({
    description:
      'The `webhook-id` sent: the event id (the same on every attempt of a delivery), `ping_…` or `test_…`',
    example: '0b9f5b8e-0f53-4a4e-8a3c-6f2d2f4f8c11',
  })
  webhook_id!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The `type` of the body sent (one of the seven event types); null for a ping',
    example: 'lead.created',
  })
  event_type!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:44:45.123Z' })
  attempted_at!: string;

  @ApiProperty({ type: 'number', description: 'To the response status, or to the failure' })
  duration_ms!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'null when no response came' })
  status_code!: number | null;

  @ApiProperty({ description: 'A 2xx within the timeout' })
  success!: boolean;

  @ApiProperty({ type: 'string', nullable: true, example: 'HTTP 500' })
  error!: string | null;
}

/** An attempt just made (a test event, a redelivery): the log's item and the response's start. */
@ApiSchema({ name: 'DeliveryAttemptResult' })
export class DeliveryAttemptResultDto extends DeliveryAttemptDto {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'At most the first 1 KiB of the response body; null when none',
  })
  response_excerpt!: string | null;
}

/** A page of the delivery log. */
@ApiSchema({ name: 'DeliveryLogPage' })
export class DeliveryLogPageDto {
  @ApiProperty({ type: [DeliveryAttemptDto] })
  items!: DeliveryAttemptDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass it as `cursor` for the next page; null on the last page',
  })
  next_cursor!: string | null;
}

/** The request of an attempt as it was sent. */
@ApiSchema({ name: 'SentRequest' })
export class SentRequestDto {
  @ApiProperty({
    enum: ['POST', 'PUT', 'PATCH'],
    description: 'POST, or the method the endpoint’s transformation chose',
  })
  method!: 'POST' | 'PUT' | 'PATCH';

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The version of the endpoint’s transformation that shaped it; null: none did',
  })
  transformation_version!: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Where it went; null for attempts recorded before the dashboard existed',
  })
  url!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description:
      'The headers in the order sent; `webhook-signature` cut to `v1,` + 12 characters + `…`',
    example: {
      'content-type': 'application/json',
      'user-agent': 'campaign-api-webhooks/1.0',
      'webhook-id': '0b9f5b8e-0f53-4a4e-8a3c-6f2d2f4f8c11',
      'webhook-timestamp': '1795500000',
      'webhook-signature': 'v1,K5oZfzN95Z9U…',
    },
  })
  headers!: Record<string, string> | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The exact body sent and signed' })
  body!: string | null;
}

/** Where an attempt's delivery stands now (docs/dashboard.md#attempt-detail). */
@ApiSchema({ name: 'AttemptDeliveryState' })
export class AttemptDeliveryStateDto {
  @ApiProperty({
    enum: ['pending', 'succeeded', 'failed', 'dropped', 'skipped'],
    description: 'The delivery’s status now (docs/webhooks.md#events)',
    example: 'pending',
  })
  status!: string;

  @ApiProperty({ type: 'integer', description: 'Attempts made so far', example: 3 })
  attempt_count!: number;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the next retry is due; null unless the delivery is pending',
  })
  next_attempt_at!: string | null;
}

/** `GET /dashboard/api/attempts/{attempt_id}`. */
@ApiSchema({ name: 'DeliveryAttemptDetail' })
@ApiExtraModels(AttemptDeliveryStateDto)
export class DeliveryAttemptDetailDto extends DeliveryAttemptResultDto {
  @ApiProperty({ type: SentRequestDto })
  request!: SentRequestDto;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description:
      'The response’s headers in the order received, names lower-cased: at most 50 and 4,096 characters, each value cut to 256 characters with `…`, `set-cookie` and credentials shown as `[redacted]`; null when no response came or for attempts recorded before response headers were stored',
    example: { 'content-type': 'application/json', 'x-request-id': 'req_8f2c' },
  })
  response_headers!: Record<string, string> | null;

  // No `type` beside the reference: `null` must satisfy the schema as well as the object.
  @ApiProperty({
    allOf: [{ $ref: getSchemaPath(AttemptDeliveryStateDto) }],
    nullable: true,
    description:
      'Where the attempt’s delivery stands now; null for pings and test events, which belong to no delivery.',
  })
  delivery!: AttemptDeliveryStateDto | null;
}

/**
 * The query of `GET /dashboard/api/endpoints/{endpoint_id}/attempts`: each parameter at most
 * once (a repeated one is a list, refused); unknown parameters are refused.
 */
export class DeliveryLogQueryDto extends PageQueryDto {
  @IsOptional()
  @IsString()
  outcome?: string;

  @IsOptional()
  @IsString()
  event_type?: string;

  @IsOptional()
  @IsString()
  from?: string;

  @IsOptional()
  @IsString()
  to?: string;
}

/** The values `event_type` takes in the delivery log's filter. */
export const LOG_EVENT_TYPES = [PING, ...EVENT_TYPES];
