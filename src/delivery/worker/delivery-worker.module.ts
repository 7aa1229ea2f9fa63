import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { DeploymentIdentity } from '../../database/deployment-identity';
import { createRedisClient } from '../../redis/redis-connection';
import { WebhookEndpointsModule } from '../../webhooks';
import { DeliveryAnalyticsModule } from '../analytics';
import { DeliveryAttemptsModule } from '../attempts';
import { DeliveriesModule } from '../deliveries';
import { DeliveryModule } from '../outbox';
import { DeliveryRecoveryModule } from '../recovery';
import { DeliveryRetentionModule } from '../retention';
import { DeliverySendingModule } from '../sending';
import { DeliveryRecoveryRunner } from './delivery-recovery.runner';
import { DeliveryProcessor } from './delivery.processor';
import { DeliverySweeper } from './delivery.sweeper';
import { EndpointThrottle, THROTTLE_LEASE_MARGIN_MS } from './endpoint-throttle';
import { FailingEndpointMonitor } from './failing-endpoints.monitor';
import { RecoveryProbeRunner } from './recovery-probes.runner';
import { ScheduledAttempts } from './scheduled-attempts.service';

/**
 * The delivery worker, the sweeper, the failing-endpoint monitor, the recovery probes of
 * endpoints that come back by themselves, bulk recoveries' batches and
 * (through `DeliveryRetentionModule`) retention (docs/operations.md#retention): in the API
 * process when `RUN_WORKER`, and in `worker.ts`. The root of the worker's side of delivery:
 * nothing imports it but the process roots, so it exports nothing.
 */
@Module({
  imports: [
    DeliveryModule,
    DeliveriesModule,
    DeliveryAttemptsModule,
    DeliveryAnalyticsModule,
    DeliverySendingModule,
    DeliveryRecoveryModule,
    DeliveryRetentionModule,
    WebhookEndpointsModule,
  ],
  providers: [
    ScheduledAttempts,
    DeliveryProcessor,
    DeliverySweeper,
    FailingEndpointMonitor,
    DeliveryRecoveryRunner,
    RecoveryProbeRunner,
    {
      // Its own connection, closed with the module (docs/webhooks.md#throttling).
      provide: EndpointThrottle,
      inject: [AppConfig, DeploymentIdentity],
      useFactory: (config: AppConfig, deployment: DeploymentIdentity) =>
        new EndpointThrottle(
          createRedisClient(config.redis, { maxRetriesPerRequest: 1 }),
          deployment.queuePrefix,
          config.webhookTimeoutMs + THROTTLE_LEASE_MARGIN_MS,
        ),
    },
  ],
})
export class DeliveryWorkerModule {}
