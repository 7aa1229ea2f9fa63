import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit';
import { Account } from './account.entity';
import { Campaign } from './campaign.entity';
import { CampaignsService } from './campaigns.service';
import { CampaignsRepository } from './campaigns.repository';

/**
 * Accounts and campaigns. Other modules use {@link CampaignsService}, never the tables; their
 * creation is recorded in the audit log.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Account, Campaign]), AuditModule],
  providers: [CampaignsRepository, CampaignsService],
  exports: [CampaignsService],
})
export class CampaignsModule {}
