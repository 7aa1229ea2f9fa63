import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit';
import { CampaignsModule } from '../campaigns';
import { TransformationsModule } from '../transformations';
import { AccountNotification } from './account-notification.entity';
import { EndpointTransformations } from './endpoint-transformations.service';
import { TransformationVersionsRepository } from './transformation-versions.repository';
import { AccountNotificationsRepository } from './account-notifications.repository';
import { AccountNotifications } from './account-notifications.service';
import { DeliveryTargets } from './delivery-targets.service';
import { SigningSecretBox } from './signing-secrets.service';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { TransformationVersion } from './transformation-version.entity';
import { WebhookEndpointAdmin } from './webhook-endpoint-admin.service';
import { WebhookEndpointReads } from './webhook-endpoint-reads.service';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/**
 * Webhook endpoints as a domain (docs/architecture.md#modules-and-tables), one service per
 * client: {@link WebhookEndpointReads} for the public API, {@link WebhookEndpointAdmin} for the
 * CLI and the dashboard, {@link DeliveryTargets} for the delivery module (which records an
 * endpoint disabled as gone in the audit log, hence {@link AuditModule}), and
 * {@link AccountNotifications}, where an account gets operational messages, and
 * {@link EndpointTransformations}, each endpoint's transformation and its versions (checked in
 * the sandbox of `TransformationsModule`). No HTTP.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEndpoint, TransformationVersion, AccountNotification]),
    CampaignsModule,
    AuditModule,
    TransformationsModule,
  ],
  providers: [
    WebhookEndpointsRepository,
    SigningSecretBox,
    WebhookEndpointReads,
    WebhookEndpointAdmin,
    DeliveryTargets,
    AccountNotificationsRepository,
    AccountNotifications,
    EndpointTransformations,
    TransformationVersionsRepository,
  ],
  exports: [
    WebhookEndpointReads,
    WebhookEndpointAdmin,
    DeliveryTargets,
    AccountNotifications,
    EndpointTransformations,
  ],
})
export class WebhookEndpointsModule {}
