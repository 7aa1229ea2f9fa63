import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access';
import { UsersModule } from '../../users';
import { PrivacyModule } from '..';
import { PrivacyDashboardController } from './privacy-dashboard.controller';

/**
 * The dashboard's privacy routes (docs/dashboard.md#privacy): `PrivacyDashboardController` under
 * `/dashboard/api/privacy` (erasure, receipts, the suppression list), admins only. A module of
 * its own beside `PrivacyApiModule`, since each OpenAPI document takes whole modules; the
 * dashboard's guards as in `CampaignsHttpModule`; `UsersModule` for the requester's email;
 * {@link AccountAccessModule} for `DashboardResourceGuard`.
 */
@Module({
  imports: [PrivacyModule, UsersModule, AccountAccessModule],
  controllers: [PrivacyDashboardController],
})
export class PrivacyHttpModule {}
