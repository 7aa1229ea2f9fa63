import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit';
import { CampaignsModule } from '../campaigns';
import { Clock } from '../common/clock';
import { DashboardSession } from './dashboard-session.entity';
import { DashboardUser } from './dashboard-user.entity';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

/**
 * Dashboard users and their sessions as a domain (docs/architecture.md#modules-and-tables,
 * docs/dashboard.md#users-and-roles): no HTTP. The CLI's `user` group manages users with
 * {@link UsersService}; the dashboard's HTTP edge signs in with it and keeps sessions with
 * {@link SessionsService}. Owns `dashboard_user` and `dashboard_session`.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([DashboardUser, DashboardSession]),
    CampaignsModule,
    AuditModule,
  ],
  providers: [UsersRepository, SessionsRepository, UsersService, SessionsService, Clock],
  exports: [UsersService, SessionsService, Clock],
})
export class UsersModule {}
