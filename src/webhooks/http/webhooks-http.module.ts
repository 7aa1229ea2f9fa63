import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access';
import { DeliveryAttemptsModule } from '../../delivery/attempts';
import { DeliveryModule } from '../../delivery/outbox';
import { WebhookEndpointsModule } from '..';
import { AccountNotificationsController } from './account-notifications.controller';
import { EndpointsController } from './endpoints.controller';
import { EventTypesController } from './event-types.controller';

/**
 * The dashboard's webhook routes (docs/dashboard.md#routes): one endpoint (read, change,
 * delete, secrets, headers, test events, its delivery log and ledger), the event types, and
 * the account's notification setting. The public API's webhook reads are `WebhooksModule`'s: a
 * module serves one surface, since each OpenAPI document takes whole modules
 * (src/openapi/openapi.ts). The dashboard's guards as in `CampaignsHttpModule`;
 * {@link AccountAccessModule} for `DashboardResourceGuard`.
 */
@Module({
  // WebhookEndpointAdmin and AccountNotifications; DeliveryService (an endpoint's delivery log,
  // ledger and test events); WebhookEventPublisher (waking jobs the throttle held back).
  imports: [WebhookEndpointsModule, DeliveryAttemptsModule, DeliveryModule, AccountAccessModule],
  controllers: [EndpointsController, EventTypesController, AccountNotificationsController],
})
export class WebhooksHttpModule {}
