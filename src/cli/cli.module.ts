import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { AuthModule } from '../auth/auth.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { AccountCommand, AccountCreateCommand } from './account.command';
import { CampaignCommand, CampaignCreateCommand } from './campaign.command';
import { ApiKeyCommand, ApiKeyCreateCommand, ApiKeyRevokeCommand } from './api-key.command';

/** The operator CLI (CONTRACT 7): the same services as the API, no HTTP. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, CampaignsModule, AuthModule],
      providers: [
        AccountCommand,
        AccountCreateCommand,
        CampaignCommand,
        CampaignCreateCommand,
        ApiKeyCommand,
        ApiKeyCreateCommand,
        ApiKeyRevokeCommand,
      ],
    };
  }
}
