import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access';
import { DeliveryAnalyticsModule } from '../analytics';
import { DeliveryAttemptsModule } from '../attempts';
import { WebhookEndpointsModule } from '../../webhooks';
import { DeliveryRecoveryModule } from '../recovery';
import { AttemptsController, DeliveriesController } from './delivery-log.controller';
import { CampaignStatsController, EndpointStatsController } from './delivery-stats.controller';
import { FilterPreviewController } from './filter-preview.controller';
import { TransformationsController } from './transformations.controller';
import { EndpointRecoveriesController, RecoveriesController } from './recoveries.controller';

/**
 * The dashboard's delivery routes (docs/dashboard.md#routes): delivery statistics, one
 * attempt in detail, redelivery, recoveries, a payload filter's preview (it reads the
 * campaign's recent events), and endpoints' transformations with their trial runs. (An endpoint's delivery log and ledger are
 * routes of the endpoint, in `WebhooksHttpModule`.) The dashboard's guards as in
 * `CampaignsHttpModule`; {@link AccountAccessModule} for `DashboardResourceGuard`.
 */
@Module({
  // DeliveryService, DeliveryStatsService, DeliveryRecoveries; WebhookEndpointAdmin (a
  // campaign's endpoints for its stats).
  imports: [
    DeliveryAttemptsModule,
    DeliveryAnalyticsModule,
    DeliveryRecoveryModule,
    WebhookEndpointsModule,
    AccountAccessModule,
  ],
  controllers: [
    EndpointStatsController,
    CampaignStatsController,
    AttemptsController,
    DeliveriesController,
    EndpointRecoveriesController,
    RecoveriesController,
    FilterPreviewController,
    TransformationsController,
  ],
})
export class DeliveryHttpModule {}
