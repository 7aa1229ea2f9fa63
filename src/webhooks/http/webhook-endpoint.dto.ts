import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EVENT_TYPES } from '..';
import type { WebhookEndpointHealthView, WebhookEndpointView } from '..';

// The OpenAPI schemas of the webhook reads; the shapes themselves are the domain's views.

/** A webhook endpoint as listed by the API (docs/api.md#webhook-reads): never a secret or a hint of one. */
@ApiSchema({ name: 'WebhookEndpoint' })
export class WebhookEndpointDto implements WebhookEndpointView {
  @ApiProperty({ type: 'integer', example: 7 })
  id!: number;

  @ApiProperty({ type: 'integer', example: 42 })
  campaign_id!: number;

  @ApiProperty({ example: 'https://crm.example.com/hooks/campaign-api' })
  url!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'CRM sync' })
  description!: string | null;

  @ApiProperty({ enum: EVENT_TYPES, isArray: true, example: ['lead.created'] })
  subscribed_events!: string[];

  @ApiProperty({ example: true })
  is_enabled!: boolean;

  /** ISO 8601 UTC. */
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:44:45.123Z' })
  created_at!: string;

  @ApiProperty({
    type: 'boolean',
    nullable: true,
    description: 'Outcome of the most recent delivery attempt',
  })
  last_delivery_is_successful!: boolean | null;
}

/** Delivery health of one endpoint (docs/api.md#webhook-reads). Counts attempts, pings included. */
@ApiSchema({ name: 'WebhookEndpointHealth' })
export class WebhookEndpointHealthDto implements WebhookEndpointHealthView {
  @ApiProperty({ type: 'integer', example: 7 })
  endpoint_id!: number;

  @ApiProperty({ example: 'https://crm.example.com/hooks/campaign-api' })
  url!: string;

  @ApiProperty({ example: true })
  is_enabled!: boolean;

  @ApiProperty({ type: 'integer', description: 'All delivery attempts ever recorded', example: 10 })
  total_deliveries!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Attempts answered 2xx within 10 seconds',
    example: 9,
  })
  successful_deliveries!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Timeouts, non-2xx answers and connection failures',
    example: 1,
  })
  failed_deliveries!: number;

  /** successful / total in [0, 1]; null with no attempts. */
  @ApiProperty({
    type: 'number',
    format: 'float',
    nullable: true,
    minimum: 0,
    maximum: 1,
    example: 0.9,
  })
  success_rate!: number | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-11-22T08:44:45.123Z',
  })
  last_delivery_at!: string | null;

  @ApiProperty({ type: 'boolean', nullable: true, example: true })
  last_delivery_is_successful!: boolean | null;

  /** Mean attempt duration in ms; null with no attempts. */
  @ApiProperty({ type: 'number', format: 'float', nullable: true, example: 84.2 })
  avg_duration_ms!: number | null;
}
