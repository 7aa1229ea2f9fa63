import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

// The delivery ledger's schemas (docs/dashboard.md#delivery-ledger). The shape is the delivery
// domain's (`DeliveryLedger`); `days` is read by `parseLedgerDays`, so the query DTO below checks
// only that it is given at most once and that no other parameter is.

/** One UTC day of an endpoint's delivery ledger. */
@ApiSchema({ name: 'DeliveryLedgerDay' })
export class DeliveryLedgerDayDto {
  @ApiProperty({ format: 'date', description: 'The UTC day', example: '2026-11-25' })
  day!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Deliveries created that day for the endpoint; always delivered + failed + pending + skipped',
    example: 12,
  })
  matched!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Of those, succeeded', example: 9 })
  delivered!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Of those, failed for good (the retry schedule ran out)',
    example: 1,
  })
  failed!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Of those, still waiting for an attempt or a retry',
    example: 1,
  })
  pending!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Of the pending, those waiting on the endpoint’s throttle (put back by it, not attempted since); the rest wait for a first attempt or a retry',
    example: 0,
  })
  throttled!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Of those, never to be sent: the endpoint was disabled when the event was recorded, or was disabled or deleted before an attempt',
    example: 1,
  })
  skipped!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Not deliveries: events of a subscribed type recorded that day that the endpoint’s payload filter left out (no match, or an evaluation error)',
    example: 4,
  })
  filtered!: number;
}

/** The endpoint's throttle and what waits on it (docs/webhooks.md#throttling). */
@ApiSchema({ name: 'DeliveryLedgerThrottle' })
export class DeliveryLedgerThrottleDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Most deliveries per second; null: unlimited',
    example: 5,
  })
  max_deliveries_per_second!: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Most attempts in flight at once; null: unlimited',
    example: 2,
  })
  max_in_flight!: number | null;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Pending deliveries of the ledger’s days waiting on the throttle',
    example: 0,
  })
  waiting!: number;
}

/** `GET /dashboard/api/endpoints/{endpoint_id}/ledger`. */
@ApiSchema({ name: 'DeliveryLedger' })
export class DeliveryLedgerDto {
  @ApiProperty({
    type: [DeliveryLedgerDayDto],
    description: 'One entry per day, today (UTC) first; a day without deliveries is all zeros',
  })
  days!: DeliveryLedgerDayDto[];

  @ApiProperty({ type: DeliveryLedgerThrottleDto })
  throttle!: DeliveryLedgerThrottleDto;
}

/** The query of the delivery ledger: `days` at most once; unknown parameters are refused. */
export class DeliveryLedgerQueryDto {
  @IsOptional()
  @IsString()
  days?: string;
}
