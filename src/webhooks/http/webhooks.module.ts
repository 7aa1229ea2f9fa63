import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth';
import { WebhookEndpointsModule } from '..';
import { WebhooksController } from './webhooks.controller';

/** The public API's webhook reads (docs/api.md#webhook-reads) over {@link WebhookEndpointsModule}. */
@Module({
  imports: [WebhookEndpointsModule, AuthModule],
  controllers: [WebhooksController],
})
export class WebhooksModule {}
