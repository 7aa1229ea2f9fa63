import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { DeliveryModule } from '../delivery/delivery.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { Lead } from './lead.entity';
import { LeadImport } from './lead-import.entity';
import { LeadImportService } from './lead-import.service';
import { LeadsController } from './leads.controller';
import { LeadScreener } from './lead-screener';
import { LeadsRepository } from './leads.repository';

/** Lead uploads: validation, the bulk writer, the import (compliance) record, and their outbox events. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Lead, LeadImport]),
    AuthModule,
    DeliveryModule,
    IdempotencyModule,
  ],
  controllers: [LeadsController],
  providers: [LeadImportService, LeadsRepository, LeadScreener],
  exports: [LeadImportService],
})
export class LeadsModule {}
