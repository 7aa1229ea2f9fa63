import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsArray, IsString } from 'class-validator';
import { EVENT_TYPES, MAX_FILTER_LENGTH } from '../../webhooks';

// A payload filter's preview (docs/dashboard.md#payload-filter-preview): the body is typed
// here, the expression and the types are checked by the domain (`previewFilter`).

/** Body of `POST /dashboard/api/campaigns/{campaign_id}/filter-preview`. */
@ApiSchema({ name: 'FilterPreviewRequest' })
export class FilterPreviewRequestDto {
  @ApiProperty({
    maxLength: MAX_FILTER_LENGTH,
    description:
      'The CEL expression to try (docs/webhooks.md#payload-filters); blank matches every event',
    example: 'data.source == "facebook"',
  })
  @IsString()
  filter!: string;

  @ApiProperty({
    enum: EVENT_TYPES,
    isArray: true,
    minItems: 1,
    description: 'The event types the endpoint subscribes to (as in the form)',
    example: ['lead.created'],
  })
  @IsArray()
  @IsString({ each: true })
  events!: string[];
}

/** One example or recorded event and what the filter made of it. */
@ApiSchema({ name: 'FilterPreviewItem' })
export class FilterPreviewItemDto {
  @ApiProperty({
    enum: ['example', 'event'],
    description: '`example`: the type’s example event; `event`: a recorded event of the campaign',
  })
  source!: 'example' | 'event';

  @ApiProperty({ enum: EVENT_TYPES })
  type!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The recorded event’s id (its webhook-id); null for an example',
  })
  event_id!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the event was recorded; null for an example',
  })
  recorded_at!: string | null;

  @ApiProperty({
    enum: ['match', 'no_match', 'error'],
    description: '`error`: the evaluation failed, which counts as no match',
  })
  result!: 'match' | 'no_match' | 'error';

  @ApiProperty({ type: 'string', nullable: true, description: 'Why the evaluation failed' })
  error!: string | null;
}

/** Answer of a filter preview: the examples first, then the recorded events, newest first. */
@ApiSchema({ name: 'FilterPreview' })
export class FilterPreviewDto {
  @ApiProperty({ type: [FilterPreviewItemDto] })
  items!: FilterPreviewItemDto[];
}
