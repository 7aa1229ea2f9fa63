import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access/account-access.module';
import { CampaignsModule } from '../../campaigns/campaigns.module';
import { LeadDeliveriesModule } from '../../delivery/lead-deliveries';
import { WebhookEndpointsModule } from '../../webhooks/webhook-endpoints.module';
import { LeadImportsModule } from '../history/lead-import-history.module';
import { LeadDirectoryModule } from '../search/lead-directory.module';
import { SpreadsheetImportsModule } from '../spreadsheet/spreadsheet-imports.module';
import { CampaignImportsController, ImportsController } from './imports.controller';
import { LeadDirectoryController } from './lead-directory.controller';
import {
  CampaignSpreadsheetImportsController,
  SpreadsheetImportsController,
} from './spreadsheet-imports.controller';

/**
 * The dashboard's lead routes (docs/dashboard.md#routes): imports and their rejections, the
 * lead directory (search, a lead, its deliveries) and spreadsheet imports. The public upload
 * route is `LeadsModule`'s: a module serves one surface, since each OpenAPI document takes
 * whole modules (src/openapi/openapi.ts). The dashboard's guards as in `CampaignsHttpModule`;
 * {@link AccountAccessModule} for `DashboardResourceGuard`.
 */
@Module({
  imports: [
    CampaignsModule,
    WebhookEndpointsModule,
    LeadImportsModule,
    LeadDirectoryModule,
    LeadDeliveriesModule,
    SpreadsheetImportsModule,
    AccountAccessModule,
  ],
  controllers: [
    CampaignImportsController,
    ImportsController,
    LeadDirectoryController,
    CampaignSpreadsheetImportsController,
    SpreadsheetImportsController,
  ],
})
export class LeadsHttpModule {}
