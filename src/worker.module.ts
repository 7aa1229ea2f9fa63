import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ENTITY_METADATA } from './entities';
import { QueueRootModule } from './queue/queue-root.module';
import { DeliveryWorkerModule } from './delivery/worker';
import { loggerParams } from './common/logging';
import { SpreadsheetImportWorkerModule } from './leads/spreadsheet-worker';
import { MetricsModule } from './metrics/metrics.module';

/**
 * A worker-only process (`npm run start:worker`): the delivery worker and sweeper, and the
 * spreadsheet import runner, and the metrics server when `METRICS_PORT` is set; no public HTTP.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerParams(config.logLevel)),
        DatabaseModule,
        ENTITY_METADATA,
        QueueRootModule,
        DeliveryWorkerModule,
        // Brings the lead import, whose LeadImportsModule holds the leads' retention step.
        SpreadsheetImportWorkerModule,
        MetricsModule,
      ],
    };
  }
}
