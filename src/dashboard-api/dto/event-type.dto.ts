import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EVENT_TYPES } from '../../webhooks/event-types.constants';

/** An event type with the example `data` a test event of that type sends (docs/webhooks.md#payloads). */
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
}
