import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../account-access';
import { AuditModule } from '../audit';
import { PortalModule } from '../portal';
import { RateLimitModule } from '../rate-limit';
import { UsersModule } from '../users';
import {
  DashboardCsrfGuard,
  DashboardInputGuard,
  DashboardRoleGuard,
  DashboardSessionGuard,
} from './dashboard.guards';
import { SessionController } from './session.controller';

/**
 * The dashboard's identity edge (docs/dashboard.md#sessions, #cross-site-request-forgery,
 * #access-rules, #requests-and-answers): the session routes, and the four guards `AppModule`
 * registers globally, in order, after the API's: {@link DashboardSessionGuard} (401),
 * {@link DashboardCsrfGuard} (403), {@link DashboardRoleGuard} (403), {@link DashboardInputGuard}
 * (422 for an undocumented query parameter or a NUL in the input). Dashboard resource modules import it for
 * {@link UsersModule} and {@link AuditModule} and declare each route's access, and the
 * resources its path names, with `@DashboardAccess` under `@DashboardController`, which adds
 * the fifth guard, `DashboardResourceGuard` (404 for an id not of the session's account).
 */
@Module({
  // AccountAccessModule: for DashboardResourceGuard, which `@DashboardController` puts on
  // SessionController too.
  // PortalModule: DashboardSessionGuard resolves embedded portal sessions.
  imports: [UsersModule, AuditModule, RateLimitModule, AccountAccessModule, PortalModule],
  controllers: [SessionController],
  providers: [DashboardSessionGuard, DashboardCsrfGuard, DashboardRoleGuard, DashboardInputGuard],
  exports: [
    DashboardSessionGuard,
    DashboardCsrfGuard,
    DashboardRoleGuard,
    DashboardInputGuard,
    UsersModule,
    AuditModule,
  ],
})
export class DashboardAuthModule {}
