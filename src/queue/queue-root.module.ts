import { BullModule } from '@nestjs/bullmq';
import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { Cluster } from 'ioredis';
import { AppConfig } from '../config/app-config';
import { DeploymentIdentity } from '../database/deployment-identity';
import { bullConnection, queueKeyPrefix } from '../redis/redis-connection';
import { claimQueueNamespace } from './queue-namespace';
import { tracedQueueOptions } from '../tracing/trace-hooks';

/**
 * BullMQ's connection to `REDIS_URL`: options for one Redis or Sentinel (BullMQ opens and
 * closes those connections), or one shared `Cluster` client for a Redis Cluster, which BullMQ
 * never closes: this provider does, once the application shuts down.
 */
@Injectable()
export class QueueConnection implements OnApplicationShutdown {
  private cluster?: Cluster;

  constructor(private readonly config: AppConfig) {}

  /** The `connection` of BullMQ's shared configuration (built once). */
  options(): ConnectionOptions {
    const connection = this.cluster ?? bullConnection(this.config.redis);
    if (connection instanceof Cluster) this.cluster = connection;
    return connection;
  }

  onApplicationShutdown(): void {
    this.cluster?.disconnect();
  }
}

@Module({ providers: [QueueConnection], exports: [QueueConnection] })
class QueueConnectionModule {}

/**
 * The BullMQ connection, registered once at the root of each process (API, worker, CLI):
 * `REDIS_URL` (one Redis, Cluster or Sentinel), keys under the deployment's namespace as a
 * hash tag (`{<namespace>}:…`, so that a queue's keys share one cluster slot), the namespace
 * claimed at start so that no other deployment can share it. With tracing on, BullMQ's own
 * telemetry traces adding and processing jobs (docs/operations.md#traces).
 */
export const QueueRootModule = BullModule.forRootAsync({
  imports: [QueueConnectionModule],
  inject: [AppConfig, DeploymentIdentity, QueueConnection],
  useFactory: async (
    config: AppConfig,
    deployment: DeploymentIdentity,
    connection: QueueConnection,
  ) => {
    await claimQueueNamespace(config.redis, deployment);
    return {
      connection: connection.options(),
      prefix: queueKeyPrefix(deployment.queuePrefix),
      ...tracedQueueOptions(),
    };
  },
});
