import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { AuthModule } from '../auth/auth.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DeliveryModule } from '../delivery/delivery.module';
import { QueueRootModule } from '../delivery/queue-root.module';
import { AccountCommand, AccountCreateCommand } from './account.command';
import { CampaignCommand, CampaignCreateCommand } from './campaign.command';
import { ApiKeyCommand, ApiKeyCreateCommand, ApiKeyRevokeCommand } from './api-key.command';
import {
  EndpointCommand,
  EndpointCreateCommand,
  EndpointDeleteCommand,
  EndpointPingCommand,
  EndpointRotateSecretCommand,
  EndpointUpdateCommand,
} from './endpoint.command';
import { DeliveryCommand, DeliveryListCommand, DeliveryRedeliverCommand } from './delivery.command';
import { EventCommand, EventEmitCommand } from './event.command';

/** The operator CLI (docs/cli.md): the same services as the API, no HTTP. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        QueueRootModule,
        CampaignsModule,
        AuthModule,
        WebhooksModule,
        DeliveryModule,
      ],
      providers: [
        AccountCommand,
        AccountCreateCommand,
        CampaignCommand,
        CampaignCreateCommand,
        ApiKeyCommand,
        ApiKeyCreateCommand,
        ApiKeyRevokeCommand,
        EndpointCommand,
        EndpointCreateCommand,
        EndpointUpdateCommand,
        EndpointDeleteCommand,
        EndpointRotateSecretCommand,
        EndpointPingCommand,
        DeliveryCommand,
        DeliveryListCommand,
        DeliveryRedeliverCommand,
        EventCommand,
        EventEmitCommand,
      ],
    };
  }
}
