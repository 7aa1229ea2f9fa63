import { BullModule } from '@nestjs/bullmq';
import { AppConfig } from '../config/app-config';
import { redisOptionsFromUrl } from './delivery-queue';

/**
 * The BullMQ connection, registered once at the root of each process (API, worker, CLI):
 * `REDIS_URL`, keys prefixed with `QUEUE_PREFIX`.
 */
export const QueueRootModule = BullModule.forRootAsync({
  inject: [AppConfig],
  useFactory: (config: AppConfig) => ({
    connection: redisOptionsFromUrl(config.redisUrl),
    prefix: config.queuePrefix,
  }),
});
