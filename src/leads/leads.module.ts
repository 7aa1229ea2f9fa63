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
import { DashboardUser } from '../users/dashboard-user.entity';
import {
  SpreadsheetImport,
  SpreadsheetImportFilePart,
} from './spreadsheet/spreadsheet-import.entity';

/** Lead uploads: validation, the bulk writer, the import (compliance) record, and their outbox events. */
@Module({
  imports: [
    // LeadImport names its uploader (an API key, or a dashboard user) and its spreadsheet import.
    TypeOrmModule.forFeature([
      Lead,
      LeadImport,
      DashboardUser,
      SpreadsheetImport,
      SpreadsheetImportFilePart,
    ]),
    AuthModule,
    DeliveryModule,
    IdempotencyModule,
  ],
  controllers: [LeadsController],
  providers: [LeadImportService, LeadsRepository, LeadScreener],
  exports: [LeadImportService],
})
export class LeadsModule {}
