import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit';
import { CampaignsModule } from '../campaigns';
import { AccountNotification } from './account-notification.entity';
import { AccountNotificationsRepository } from './account-notifications.repository';
import { AccountNotifications } from './account-notifications.service';
import { DeliveryTargets } from './delivery-targets.service';
import { SigningSecretBox } from './signing-secrets.service';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointAdmin } from './webhook-endpoint-admin.service';
import { WebhookEndpointReads } from './webhook-endpoint-reads.service';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/**
 * Webhook endpoints as a domain (docs/architecture.md#modules-and-tables), one service per
 * client: {@link WebhookEndpointReads} for the public API, {@link WebhookEndpointAdmin} for the
 * CLI and the dashboard, {@link DeliveryTargets} for the delivery module (which records an
 * endpoint disabled as gone in the audit log, hence {@link AuditModule}), and
 * {@link AccountNotifications}, where an account gets operational messages. No HTTP.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEndpoint, AccountNotification]),
    CampaignsModule,
    AuditModule,
  ],
  providers: [
    WebhookEndpointsRepository,
    SigningSecretBox,
    WebhookEndpointReads,
    WebhookEndpointAdmin,
    DeliveryTargets,
    AccountNotificationsRepository,
    AccountNotifications,
  ],
  exports: [WebhookEndpointReads, WebhookEndpointAdmin, DeliveryTargets, AccountNotifications],
})
export class WebhookEndpointsModule {}
