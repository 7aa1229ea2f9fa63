import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../account-access/account-access.module';
import { AuditModule } from '../audit/audit.module';
import { ApiKeysModule } from '../auth/api-keys.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { DeliveryAttemptsModule } from '../delivery/attempts';
import { AccountNotificationsController } from './account-notifications.controller';
import { DeliveryRecoveryModule } from '../delivery/recovery';
import { ApiKeysController } from './api-keys.controller';
import { AuditLogController } from './audit-log.controller';
import { CampaignsController } from './campaigns.controller';
import { AttemptsController, DeliveriesController } from './delivery-log.controller';
import { EndpointsController } from './endpoints.controller';
import { CampaignStatsController, EndpointStatsController } from './delivery-stats.controller';
import { EventTypesController } from './event-types.controller';
import { CampaignImportsController, ImportsController } from './imports.controller';
import { LeadImportsModule } from '../leads/history/lead-import-history.module';
import { LeadDeliveriesModule } from '../delivery/lead-deliveries';
import { LeadDirectoryModule } from '../leads/search/lead-directory.module';
import { LeadsController } from './lead-directory.controller';
import { SpreadsheetImportsModule } from '../leads/spreadsheet/spreadsheet-imports.module';
import {
  CampaignSpreadsheetImportsController,
  SpreadsheetImportsController,
} from './spreadsheet-imports.controller';
import { EndpointRecoveriesController, RecoveriesController } from './recoveries.controller';

/**
 * The dashboard's resource routes under `/dashboard/api/` (docs/dashboard.md#routes): thin
 * controllers over the domain services the CLI uses (campaigns, webhook endpoints, the delivery
 * log, API keys, the audit log, the lead search and a lead's deliveries). The session, CSRF,
 * role and query rules are the global guards of `DashboardAuthModule`; the ids each route
 * declares in `@DashboardAccess` are checked against the session's account by
 * `DashboardResourceGuard` (put on every controller by `@DashboardController`) through
 * {@link AccountAccessModule}.
 */
@Module({
  imports: [
    CampaignsModule,
    ApiKeysModule,
    AuditModule,
    // DeliveryService, and WebhookEndpointAdmin through the re-exported WebhookEndpointsModule.
    DeliveryAttemptsModule,
    AccountAccessModule,
    DeliveryRecoveryModule,
    LeadImportsModule,
    LeadDirectoryModule,
    LeadDeliveriesModule,
    SpreadsheetImportsModule,
  ],
  controllers: [
    CampaignsController,
    CampaignImportsController,
    ImportsController,
    EndpointsController,
    EndpointStatsController,
    CampaignStatsController,
    AttemptsController,
    DeliveriesController,
    EventTypesController,
    ApiKeysController,
    AccountNotificationsController,
    AuditLogController,
    EndpointRecoveriesController,
    RecoveriesController,
    LeadsController,
    CampaignSpreadsheetImportsController,
    SpreadsheetImportsController,
  ],
})
export class DashboardResourcesModule {}
