import { Global, Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module';
import { Metrics } from './metrics.service';
import { MetricsServer } from './metrics-server.service';
import { OperationalStateRepository } from './operational-state.repository';
import { OperationalGauges } from './operational-gauges.service';

/**
 * Prometheus metrics (docs/operations.md#metrics), in the API and the worker process: the
 * {@link Metrics} service, global so that feature modules inject it without importing this
 * module (they take it `@Optional()`: the CLI and unit tests load no metrics), the gauges read
 * at scrape time, and the server on `METRICS_PORT`.
 */
@Global()
@Module({
  imports: [DeliveryModule],
  providers: [Metrics, OperationalGauges, OperationalStateRepository, MetricsServer],
  exports: [Metrics],
})
export class MetricsModule {}
