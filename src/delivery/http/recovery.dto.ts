import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { RECOVERY_SCOPES } from '../recovery';

// Bulk recovery's schemas (docs/dashboard.md#bulk-recovery), replays of missed deliveries
// included (docs/dashboard.md#replaying-missed-deliveries). The shapes are the delivery domain's
// (`RecoveryPreview`, `RecoveryRecord`); `since` and `scope` are checked by `DeliveryRecoveries`
// (an ISO 8601 date-time with a zone, not in the future; `failed` or `missed`), so the DTOs
// check only their types.

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
      'Send again the endpoint’s deliveries of the scope created at or after this time (ISO 8601 with a zone, not in the future)',
    example: '2026-11-24T09:00:00Z',
  })
  @IsString()
  since!: string;

  @ApiPropertyOptional({
    enum: RECOVERY_SCOPES,
    description:
      '`failed` (the default): the failed deliveries and those waiting on a retry, a bulk recovery. `missed`: a replay of what the endpoint missed, the failed deliveries and those skipped or dropped while it was disabled. `transformation_errors`: only the deliveries that failed on the endpoint’s transformation (send them again once the code is fixed)',
  })
  @IsOptional()
  @IsString()
  scope?: string;
}

@ApiSchema({ name: 'RecoveryPreview' })
export class RecoveryPreviewDto {
  @ApiProperty({ format: 'date-time', description: 'The `since` asked for, in UTC' })
  since!: string;
  @ApiProperty({
    type: 'integer',
    description:
      'The endpoint’s deliveries that are failed (their retry schedule ran out) and were created at or after `since`',
  })
  failed_count!: number;
  @ApiProperty({
    type: 'integer',
    description:
      'The endpoint’s deliveries that are pending with at least one failed attempt, waiting on their next retry, and were created at or after `since`: a recovery (either scope) moves that retry to now',
  })
  retrying_count!: number;
  @ApiProperty({
    type: 'integer',
    description:
      'The endpoint’s deliveries that are skipped (recorded while it was disabled) or dropped (disabled before their attempt) and were created at or after `since`: sent again by a replay (scope `missed`) only',
  })
  skipped_count!: number;
}

@ApiSchema({ name: 'Recovery' })
export class RecoveryDto {
  @ApiProperty({ type: 'integer', example: 4 })
  id!: number;
  @ApiProperty({ type: 'integer', example: 7 })
  endpoint_id!: number;
  @ApiProperty({
    enum: RECOVERY_SCOPES,
    description:
      '`failed`: a bulk recovery of failed deliveries; `missed`: a replay of failed, skipped and dropped deliveries; `transformation_errors`: the deliveries that failed on the endpoint’s transformation',
  })
  scope!: string;
  @ApiProperty({ format: 'date-time' })
  since!: string;
  @ApiProperty({
    enum: ['running', 'done', 'cancelled'],
    description:
      '`running` while batches remain, `done` once every counted delivery was queued and sent once more, `cancelled` by a user (or because the endpoint was disabled)',
  })
  status!: string;
  @ApiProperty({
    type: 'integer',
    description: 'Deliveries of its scope counted at the start',
  })
  total!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Deliveries queued again (or, waiting on a retry, made due now) so far',
  })
  processed!: number;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  finished_at!: string | null;
}
