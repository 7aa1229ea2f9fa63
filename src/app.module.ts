import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ENTITY_METADATA } from './entities';
import { AuthModule } from './auth/auth.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { LeadsModule } from './leads/upload-api/leads.module';
import { HealthModule } from './health/health.module';
import { WebhooksModule } from './webhooks/http/webhooks.module';
import { PrivacyApiModule } from './privacy/http/privacy-api.module';
import { PrivacyHttpModule } from './privacy/http/privacy-http.module';
import { DeliveryModule } from './delivery/outbox';
import { QueueRootModule } from './queue/queue-root.module';
import { DeliveryWorkerModule } from './delivery/worker';
import { SpreadsheetImportWorkerModule } from './leads/spreadsheet-worker';
import { ErrorEnvelopeFilter } from './common/error-envelope.filter';
import { loggerParams } from './common/logging';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { MetricsModule } from './metrics/metrics.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { DashboardAuthModule } from './dashboard-kernel/dashboard-auth.module';
import { CampaignsHttpModule } from './campaigns/http/campaigns-http.module';
import { LeadsHttpModule } from './leads/http/leads-http.module';
import { WebhooksHttpModule } from './webhooks/http/webhooks-http.module';
import { DeliveryHttpModule } from './delivery/http/delivery-http.module';
import { ApiKeysHttpModule } from './auth/http/api-keys-http.module';
import { AuditHttpModule } from './audit/http/audit-http.module';
import { PortalApiModule, PortalHttpModule } from './portal/http/portal-http.module';
import {
  DashboardCsrfGuard,
  DashboardInputGuard,
  DashboardRoleGuard,
  DashboardSessionGuard,
} from './dashboard-kernel/dashboard.guards';

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
        ENTITY_METADATA,
        QueueRootModule,
        CampaignsModule,
        AuthModule,
        LeadsModule,
        WebhooksModule,
        PrivacyApiModule,
        DeliveryModule,
        ...(config.runWorker ? [DeliveryWorkerModule, SpreadsheetImportWorkerModule] : []),
        HealthModule,
        RateLimitModule,
        DashboardAuthModule,
        // The dashboard's resource routes, each feature's beside it (docs/dashboard.md#routes).
        CampaignsHttpModule,
        LeadsHttpModule,
        WebhooksHttpModule,
        DeliveryHttpModule,
        ApiKeysHttpModule,
        AuditHttpModule,
        PrivacyHttpModule,
        PortalHttpModule,
        PortalApiModule,
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
