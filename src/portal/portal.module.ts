import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit';
import { CampaignsModule } from '../campaigns';
import { UsersModule } from '../users';
import { PortalLink } from './portal-link.entity';
import { PortalLinksRepository } from './portal-links.repository';
import { PortalLinks } from './portal-links.service';

/**
 * The embeddable portal's links and sessions (docs/dashboard.md#embedding-the-portal): the
 * `portal_link` table and {@link PortalLinks}. Loaded by the API (minting, the exchange, every
 * portal request's check) and the CLI's `portal` group.
 */
@Module({
  // UsersModule: for the Clock (the one provider of the service's time).
  imports: [TypeOrmModule.forFeature([PortalLink]), CampaignsModule, AuditModule, UsersModule],
  providers: [PortalLinksRepository, PortalLinks],
  exports: [PortalLinks],
})
export class PortalModule {}
