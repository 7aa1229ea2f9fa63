import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { AuthModule } from './auth/auth.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { LeadsModule } from './leads/upload/leads.module';
import { HealthModule } from './health/health.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { DeliveryModule, QueueRootModule } from './delivery/outbox';
import { DeliveryWorkerModule } from './delivery/worker';
import { ImportRejectionRetentionModule } from './leads/history/import-rejection-retention.module';
import { SpreadsheetImportWorkerModule } from './leads/spreadsheet/spreadsheet-imports.module';
import { ErrorEnvelopeFilter } from './common/error-envelope.filter';
import { loggerParams } from './common/logging';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { MetricsModule } from './metrics/metrics.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { DashboardAuthModule } from './dashboard-api/dashboard-auth.module';
import { DashboardResourcesModule } from './dashboard-api/dashboard-resources.module';
import {
  DashboardCsrfGuard,
  DashboardInputGuard,
  DashboardRoleGuard,
  DashboardSessionGuard,
} from './dashboard-api/dashboard.guards';

/**
 * The HTTP application: every module of the service behind the global error filter, plus the
 * delivery worker when `RUN_WORKER` is true. The public API under `/api/v1` and the dashboard
 * API under `/dashboard/api` (docs/dashboard.md) share it.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerParams(config.logLevel)),
        DatabaseModule,
        QueueRootModule,
        CampaignsModule,
        AuthModule,
        LeadsModule,
        WebhooksModule,
        DeliveryModule,
        ...(config.runWorker
          ? [DeliveryWorkerModule, ImportRejectionRetentionModule, SpreadsheetImportWorkerModule]
          : []),
        HealthModule,
        RateLimitModule,
        DashboardAuthModule,
        DashboardResourcesModule,
        MetricsModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        // Global guards run in this order: who is calling (401), then how often (429); both let
        // dashboard routes through (no bearer token, no API key). Then the dashboard's, which
        // look only at routes under /dashboard/api/ (docs/dashboard.md#access-rules): session
        // (401), cross-site request forgery (403), role (403), then query parameters the route
        // does not document and NUL characters (422, docs/dashboard.md#requests-and-answers).
        { provide: APP_GUARD, useExisting: BearerAuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useExisting: DashboardSessionGuard },
        { provide: APP_GUARD, useExisting: DashboardCsrfGuard },
        { provide: APP_GUARD, useExisting: DashboardRoleGuard },
        { provide: APP_GUARD, useExisting: DashboardInputGuard },
      ],
    };
  }
}
