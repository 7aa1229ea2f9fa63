import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access';
import { AuthModule } from '../../auth';
import { CampaignsModule } from '../../campaigns';
import { PortalModule } from '..';
import { PortalController, PortalOriginsController } from './portal.controller';
import { PortalSessionsController } from './portal-sessions.controller';

/**
 * The embedded portal's dashboard routes (docs/dashboard.md#embedding-the-portal): the exchange
 * and the account's portal origins. The dashboard's guards come from
 * `DashboardAuthModule`, registered by `AppModule`; {@link AccountAccessModule} for
 * `DashboardResourceGuard`.
 */
@Module({
  imports: [PortalModule, CampaignsModule, AccountAccessModule],
  controllers: [PortalController, PortalOriginsController],
})
export class PortalHttpModule {}

/**
 * The public API's portal routes (docs/api.md#portal-sessions): minting and revoking links with
 * an API key's bearer token. A module of its own: each OpenAPI document takes whole modules.
 */
@Module({
  imports: [PortalModule, AuthModule],
  controllers: [PortalSessionsController],
})
export class PortalApiModule {}
