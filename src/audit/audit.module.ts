import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditLogEntry } from './audit-log-entry.entity';
import { AuditLog } from './audit-log.service';
import { AuditRepository } from './audit.repository';

/**
 * The audit log as a domain (docs/architecture.md#modules-and-tables,
 * docs/dashboard.md#audit-log): owns `audit_log_entry`, exports {@link AuditLog}. Imports
 * nothing else, so every CLI group can load it without slowing down.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditLogEntry])],
  providers: [AuditRepository, AuditLog],
  exports: [AuditLog],
})
export class AuditModule {}
