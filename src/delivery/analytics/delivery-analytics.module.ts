import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveryRollupRepository } from './delivery-rollup.repository';
import { DeliveryStatsService } from './delivery-stats.service';
import { EndpointDeliveryRollup } from './endpoint-delivery-rollup.entity';
import { RollupRetention } from './rollup-retention.service';

/**
 * Delivery analytics (docs/delivery-analytics.md): the owner of `endpoint_delivery_rollup`.
 * {@link DeliveryStatsService} is its face: the dashboard's stats, the attempt log's increments
 * (in the attempt's transaction), the failing-endpoint signals. Its `RollupRetention` is found by
 * the retention pass.
 */
@Module({
  imports: [TypeOrmModule.forFeature([EndpointDeliveryRollup])],
  providers: [DeliveryRollupRepository, DeliveryStatsService, RollupRetention],
  exports: [DeliveryStatsService],
})
export class DeliveryAnalyticsModule {}
