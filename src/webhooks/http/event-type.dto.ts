import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EVENT_TYPES } from '..';

/**
 * An event type with its description, the example `data` a test event of that type sends
 * (docs/webhooks.md#payloads) and the JSON Schema of its whole body
 * (docs/webhooks.md#payload-schemas).
 */
@ApiSchema({ name: 'EventType' })
export class EventTypeDto {
  @ApiProperty({ enum: EVENT_TYPES, example: 'lead.created' })
  type!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'An example of the `data` object of this type’s events',
    example: { lead_id: 19801, campaign_id: 1, status: 'contacted' },
  })
  example!: Record<string, unknown>;

  @ApiProperty({ description: 'When events of this type are sent' })
  description!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The JSON Schema (draft 2020-12) of the whole body of this type’s events: `{"type", "timestamp", "data"}`',
    example: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
  })
  schema!: Record<string, unknown>;
}
