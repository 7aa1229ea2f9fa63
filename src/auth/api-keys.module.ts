import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit';
import { CampaignsModule } from '../campaigns';
import { ApiKey } from './api-key.entity';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

/**
 * API keys as a domain (docs/architecture.md#modules-and-tables): creation, listing,
 * revocation and look-ups, with no HTTP, JWT or passport. The HTTP {@link AuthModule}, the CLI
 * and the dashboard build on it. Records creations and revocations in the audit log.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKey]), CampaignsModule, AuditModule],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
