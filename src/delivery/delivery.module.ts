import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DeliveryAttemptsModule } from './attempts/delivery-attempts.module';
import { DELIVERY_QUEUE } from './outbox/delivery.queue';
import { DeliveryDispatcher } from './outbox/delivery.dispatcher';
import { WebhookEventPublisher } from './outbox/webhook-event.publisher';
import { DeliveryQueueJobs } from './outbox/delivery-queue-jobs.service';
import { DeliveryProcessor } from './worker/delivery.processor';
import { DeliverySweeper } from './worker/delivery.sweeper';
import { FailingEndpointMonitor } from './worker/failing-endpoints.monitor';
import { DeliveryRetention } from './retention/delivery-retention.service';
import { DeliveryRetentionRepository } from './retention/delivery-retention.repository';
import { ScheduledAttempts } from './worker/scheduled-attempts.service';
import { DeliveryRecoveryRepository } from './recovery/delivery-recovery.repository';
import { DeliveryRecoveryRunner } from './recovery/delivery-recovery.runner';
import { AppConfig } from '../config/app-config';
import { DeploymentIdentity } from '../database/deployment-identity';
import { createRedisClient } from '../redis/redis-connection';
import { EndpointThrottle, THROTTLE_LEASE_MARGIN_MS } from './worker/endpoint-throttle';

/**
 * Recording and dispatching events (docs/webhooks.md): the outbox publisher any module calls
 * inside its transaction (docs/architecture.md#publishing-events), and the queue it dispatches
 * to. Needs `QueueRootModule` at the root of the process.
 */
@Module({
  imports: [DeliveryAttemptsModule, BullModule.registerQueue({ name: DELIVERY_QUEUE })],
  providers: [WebhookEventPublisher, DeliveryDispatcher, DeliveryQueueJobs],
  // The queue is registered once here; importers share its connection.
  exports: [WebhookEventPublisher, DeliveryDispatcher, DeliveryAttemptsModule, BullModule],
})
export class DeliveryModule {}

/**
 * The delivery worker, the sweeper, the failing-endpoint monitor, bulk recoveries' batches and
 * retention (docs/operations.md#retention):
 * in the API process when `RUN_WORKER`, and in `worker.ts`.
 */
@Module({
  imports: [DeliveryModule, DiscoveryModule],
  providers: [
    ScheduledAttempts,
    DeliveryProcessor,
    DeliverySweeper,
    FailingEndpointMonitor,
    DeliveryRecoveryRepository,
    DeliveryRecoveryRunner,
    DeliveryRetentionRepository,
    DeliveryRetention,
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
