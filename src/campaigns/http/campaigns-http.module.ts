import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access';
import { WebhookEndpointsModule } from '../../webhooks';
import { CampaignsModule } from '..';
import { CampaignsController } from './campaigns.controller';

/**
 * The dashboard's campaign routes (docs/dashboard.md#routes): the account's campaigns, and a
 * campaign's webhook endpoints. Session, CSRF, role and query rules are the global guards of
 * `DashboardAuthModule`; `@DashboardController` adds `DashboardResourceGuard`, which checks
 * the path's ids against the session's account through {@link AccountAccessModule}.
 */
@Module({
  imports: [CampaignsModule, WebhookEndpointsModule, AccountAccessModule],
  controllers: [CampaignsController],
})
export class CampaignsHttpModule {}
