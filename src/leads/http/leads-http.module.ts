import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access';
import { CampaignsModule } from '../../campaigns';
import { LeadDeliveriesModule } from '../../delivery/lead-deliveries';
import { WebhookEndpointsModule } from '../../webhooks';
import { LeadImportsModule } from '../history';
import { LeadDirectoryModule } from '../search';
import { SpreadsheetImportsModule } from '../spreadsheet';
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
