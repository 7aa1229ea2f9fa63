import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveryModule } from '../../delivery/outbox';
import { IdempotencyModule } from '../../idempotency';
import { LeadImportsModule } from '../history';
import { SuppressionListModule } from '../suppression';
import { Lead } from '..';
import { LeadImportService } from './lead-import.service';
import { LeadScreener } from './lead-screener.service';
import { LeadsRepository } from './leads.repository';

/**
 * Importing leads (docs/architecture.md#domain-modules): screening, the bulk writer of `lead`
 * (this module's table), and, in the same transaction, the import (compliance) record and its
 * rejected rows through `LeadImports` and the outbox events, for the public upload route and for
 * the worker's spreadsheet imports alike. No controller and no authentication: the worker loads
 * it without the HTTP stack.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Lead]),
    DeliveryModule,
    IdempotencyModule,
    LeadImportsModule,
    SuppressionListModule,
  ],
  providers: [LeadImportService, LeadsRepository, LeadScreener],
  exports: [LeadImportService],
})
export class LeadImportModule {}
