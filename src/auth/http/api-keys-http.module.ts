import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access';
import { ApiKeysModule } from '..';
import { ApiKeysController } from './api-keys.controller';

/**
 * The dashboard's API-key routes (docs/dashboard.md#routes): list, create, revoke. The
 * dashboard's guards as in `CampaignsHttpModule`; {@link AccountAccessModule} for
 * `DashboardResourceGuard`.
 */
@Module({
  imports: [ApiKeysModule, AccountAccessModule],
  controllers: [ApiKeysController],
})
export class ApiKeysHttpModule {}
