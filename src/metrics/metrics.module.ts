import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Metrics } from './metrics.service';
import { MetricsServer } from './metrics-server.service';
import { OperationalStateRepository } from './operational-state.repository';
import { OperationalGauges } from './operational-gauges.service';

/**
 * Prometheus metrics (docs/operations.md#metrics), in the API and the worker process: the
 * {@link Metrics} service, global so that feature modules inject it without importing this
 * module (they take it `@Optional()`: the CLI and unit tests load no metrics), the gauges read
 * at scrape time (a feature's queue through its `@MetricsSource()` provider: this module imports
 * no feature), and the server on `METRICS_PORT`.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [Metrics, OperationalGauges, OperationalStateRepository, MetricsServer],
  exports: [Metrics],
})
export class MetricsModule {}
