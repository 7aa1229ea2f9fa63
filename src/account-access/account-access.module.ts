import { Module } from '@nestjs/common';
import { AccountAccessRepository } from './account-access.repository';
import { AccountAccessService } from './account-access.service';

/**
 * The account check of every resource an account owns (docs/architecture.md#account-access):
 * {@link AccountAccessService}. It owns no table and needs only the `DataSource`, so an edge
 * imports it without any feature's providers.
 */
@Module({
  providers: [AccountAccessRepository, AccountAccessService],
  exports: [AccountAccessService],
})
export class AccountAccessModule {}
