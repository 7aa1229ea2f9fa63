import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsString } from 'class-validator';

// Bulk recovery's schemas (docs/dashboard.md#bulk-recovery). The shapes are the delivery
// domain's (`RecoveryPreview`, `RecoveryRecord`); `since` is checked by `DeliveryRecoveries`
// (an ISO 8601 date-time with a zone, not in the future), so the DTOs check only its type.

/** The query of `GET /endpoints/{endpoint_id}/recovery/preview`. */
export class RecoveryPreviewQueryDto {
  @IsString()
  since!: string;
}

/** Body of `POST /endpoints/{endpoint_id}/recoveries`. */
@ApiSchema({ name: 'StartRecoveryRequest' })
export class StartRecoveryRequestDto {
  @ApiProperty({
    format: 'date-time',
    description:
      'Redeliver the endpoint’s failed deliveries created at or after this time (ISO 8601 with a zone, not in the future)',
    example: '2026-11-24T09:00:00Z',
  })
  @IsString()
  since!: string;
}

@ApiSchema({ name: 'RecoveryPreview' })
export class RecoveryPreviewDto {
  @ApiProperty({ format: 'date-time', description: 'The `since` asked for, in UTC' })
  since!: string;
  @ApiProperty({
    type: 'integer',
    description: 'The endpoint’s deliveries that are failed and were created at or after `since`',
  })
  failed_count!: number;
}

@ApiSchema({ name: 'Recovery' })
export class RecoveryDto {
  @ApiProperty({ type: 'integer', example: 4 })
  id!: number;
  @ApiProperty({ type: 'integer', example: 7 })
  endpoint_id!: number;
  @ApiProperty({ format: 'date-time' })
  since!: string;
  @ApiProperty({
    enum: ['running', 'done', 'cancelled'],
    description:
      '`running` while batches remain, `done` once every counted delivery was queued and sent once more, `cancelled` by a user (or because the endpoint was disabled)',
  })
  status!: string;
  @ApiProperty({ type: 'integer', description: 'Failed deliveries counted at the start' })
  total!: number;
  @ApiProperty({ type: 'integer', description: 'Deliveries queued again so far' })
  processed!: number;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  finished_at!: string | null;
}
