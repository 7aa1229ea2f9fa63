import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { AuthModule } from './auth/auth.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { LeadsModule } from './leads/leads.module';
import { HealthModule } from './health/health.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { DeliveryModule, DeliveryWorkerModule } from './delivery/delivery.module';
import { QueueRootModule } from './delivery/queue-root.module';
import { ErrorEnvelopeFilter } from './common/error-envelope.filter';
import { loggerParams } from './common/logging';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';

/**
 * The HTTP application: every module of the service behind the global error filter, plus the
 * delivery worker when `RUN_WORKER` is true.
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
        ...(config.runWorker ? [DeliveryWorkerModule] : []),
        HealthModule,
        RateLimitModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        // Global guards run in this order: who is calling (401), then how often (429).
        { provide: APP_GUARD, useExisting: BearerAuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
    };
  }
}
