import { Module } from '@nestjs/common';
import { AccountAccessModule } from '../../account-access';
import { AuditModule } from '..';
import { AuditLogController } from './audit-log.controller';

/**
 * The dashboard's audit log route (docs/dashboard.md#routes). The dashboard's guards as in
 * `CampaignsHttpModule`; {@link AccountAccessModule} for `DashboardResourceGuard`.
 */
@Module({
  imports: [AuditModule, AccountAccessModule],
  controllers: [AuditLogController],
})
export class AuditHttpModule {}
