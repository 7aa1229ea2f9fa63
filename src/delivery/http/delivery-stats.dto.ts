import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { STATS_WINDOWS } from '../analytics';

// Delivery analytics' schemas (docs/delivery-analytics.md#the-dashboards-routes). The shapes are
// the delivery domain's (`DeliveryStats`); `window` is checked by `DeliveryStatsService`, so
// the query DTO checks only that it is given once.

/** The query of a stats route. */
export class DeliveryStatsQueryDto {
  @IsOptional()
  @IsString()
  window?: string;
}

@ApiSchema({ name: 'FailureCounts' })
export class FailureCountsDto {
  @ApiProperty({ type: 'integer', description: 'No answer within the timeout' })
  timeout!: number;
  @ApiProperty({ type: 'integer', description: 'No connection (refused, DNS, TLS, reset)' })
  connection_error!: number;
  @ApiProperty({ type: 'integer', description: '3xx answers (never followed)' })
  redirect!: number;
  @ApiProperty({ type: 'integer', description: '4xx answers' })
  client_error!: number;
  @ApiProperty({ type: 'integer', description: '5xx answers' })
  server_error!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Other statuses, unsigned requests, attempts of unknown outcome',
  })
  other!: number;
}

@ApiSchema({ name: 'LatencyPercentiles' })
export class LatencyPercentilesDto {
  @ApiProperty({ type: 'number', nullable: true })
  p50!: number | null;
  @ApiProperty({ type: 'number', nullable: true })
  p95!: number | null;
  @ApiProperty({ type: 'number', nullable: true })
  p99!: number | null;
}

@ApiSchema({ name: 'LagPercentiles' })
export class LagPercentilesDto {
  @ApiProperty({ type: 'number', nullable: true })
  p50!: number | null;
  @ApiProperty({ type: 'number', nullable: true })
  p95!: number | null;
}

/** Figures over a set of attempts. */
@ApiSchema({ name: 'DeliveryFigures' })
export class DeliveryFiguresDto {
  @ApiProperty({ type: 'integer' })
  attempts!: number;
  @ApiProperty({ type: 'integer' })
  successes!: number;
  @ApiProperty({ type: FailureCountsDto })
  failures!: FailureCountsDto;
  @ApiProperty({ type: 'number', nullable: true, description: 'successes / attempts, 0–1' })
  success_rate!: number | null;
  @ApiProperty({ type: 'number', nullable: true, description: 'Mean attempt duration, ms' })
  avg_duration_ms!: number | null;
  @ApiProperty({
    type: LatencyPercentilesDto,
    description: 'Attempt duration percentiles, ms, within 4.9 % of the exact values',
  })
  latency_ms!: LatencyPercentilesDto;
  @ApiProperty({ type: 'integer', description: 'Deliveries whose first success falls here' })
  first_successes!: number;
  @ApiProperty({
    type: LagPercentilesDto,
    description: 'Event recorded → first successful attempt, ms, within 4.9 %',
  })
  lag_ms!: LagPercentilesDto;
}

@ApiSchema({ name: 'DeliveryStatsPoint' })
export class DeliveryStatsPointDto extends DeliveryFiguresDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the minute, hour or day (UTC)' })
  start!: string;
}

@ApiSchema({ name: 'DeliveryStats' })
export class DeliveryStatsDto {
  @ApiProperty({ enum: Object.keys(STATS_WINDOWS) })
  window!: string;
  @ApiProperty({ enum: ['minute', 'hour', 'day'], description: 'The period of each point' })
  resolution!: string;
  @ApiProperty({ format: 'date-time', description: 'Start of the first point' })
  from!: string;
  @ApiProperty({ format: 'date-time', description: 'End of the last point (exclusive)' })
  to!: string;
  @ApiProperty({ type: DeliveryFiguresDto })
  totals!: DeliveryFiguresDto;
  @ApiProperty({
    type: [DeliveryStatsPointDto],
    description: 'Oldest first, empty periods included',
  })
  points!: DeliveryStatsPointDto[];
}
