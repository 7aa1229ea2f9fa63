import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { SigningSecretBox } from './signing-secrets';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhooksController } from './webhooks.controller';

/** Webhook endpoints: the API's read side and the operator's management service. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint]), AuthModule],
  controllers: [WebhooksController],
  providers: [WebhookEndpointsService, SigningSecretBox],
  exports: [WebhookEndpointsService],
})
export class WebhooksModule {}
