import { BullModule } from '@nestjs/bullmq';
import { AppConfig } from '../config/app-config';
import { DeploymentIdentity } from '../database/deployment-identity';
import { redisOptionsFromUrl } from './delivery-queue';
import { claimQueueNamespace } from './queue-namespace';
import { tracedQueueOptions } from '../tracing/trace-hooks';

/**
 * The BullMQ connection, registered once at the root of each process (API, worker, CLI):
 * `REDIS_URL`, keys prefixed with the deployment's namespace, claimed at start so that no
 * other deployment can share it. With tracing on, BullMQ's own telemetry traces adding and
 * processing jobs (docs/operations.md#traces).
 */
export const QueueRootModule = BullModule.forRootAsync({
  inject: [AppConfig, DeploymentIdentity],
  useFactory: async (config: AppConfig, deployment: DeploymentIdentity) => {
    await claimQueueNamespace(config.redisUrl, deployment);
    return {
      connection: redisOptionsFromUrl(config.redisUrl),
      prefix: deployment.queuePrefix,
      ...tracedQueueOptions(),
    };
  },
});
