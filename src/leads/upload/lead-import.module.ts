import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from '../../auth/api-key.entity';
import { DeliveryModule } from '../../delivery/delivery.module';
import { IdempotencyModule } from '../../idempotency/idempotency.module';
import { DashboardUser } from '../../users/dashboard-user.entity';
import { Lead } from '../lead.entity';
import { LeadImport } from '../lead-import.entity';
import { LeadImportService } from './lead-import.service';
import { LeadScreener } from './lead-screener.service';
import { LeadsRepository } from './leads.repository';
import {
  SpreadsheetImport,
  SpreadsheetImportFilePart,
} from '../spreadsheet/spreadsheet-import.entity';

/**
 * Importing leads (docs/architecture.md#domain-modules): screening, the bulk writer, the import
 * (compliance) record and the outbox events, for the public upload route and for the worker's
 * spreadsheet imports alike. No controller and no authentication: the worker loads it without
 * the HTTP stack.
 */
@Module({
  imports: [
    // LeadImport names its uploader (an API key, or a dashboard user) and its spreadsheet
    // import, and an idempotency key its API key: TypeORM needs those entities' metadata in
    // every process that writes one (the worker loads no ApiKeysModule).
    TypeOrmModule.forFeature([
      Lead,
      LeadImport,
      ApiKey,
      DashboardUser,
      SpreadsheetImport,
      SpreadsheetImportFilePart,
    ]),
    DeliveryModule,
    IdempotencyModule,
  ],
  providers: [LeadImportService, LeadsRepository, LeadScreener],
  exports: [LeadImportService],
})
export class LeadImportModule {}
