import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit';
import { CampaignsModule } from '../campaigns';
import { DeliveryAttemptsModule } from '../delivery/attempts';
import { DeliveriesModule } from '../delivery/deliveries';
import { IdempotencyModule } from '../idempotency';
import { LeadImportsModule } from '../leads/history';
import { SpreadsheetImportsModule } from '../leads/spreadsheet';
import { SuppressionListModule } from '../leads/suppression';
import { LeadImportModule } from '../leads/upload';
import { ErasureReceipt } from './erasure-receipt.entity';
import { ErasureRepository } from './erasure.repository';
import { ErasureService } from './erasure.service';
import { Suppressions } from './suppressions.service';

/**
 * Erasure and the suppression list's management (docs/privacy.md): `erasure_receipt`, this
 * module's table; every other table an erasure touches is reached through its owner's service,
 * in the erasure's transaction. No controller: the public API, the dashboard and the CLI call
 * `ErasureService` and `Suppressions`.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ErasureReceipt]),
    AuditModule,
    CampaignsModule,
    DeliveriesModule,
    DeliveryAttemptsModule,
    IdempotencyModule,
    LeadImportModule,
    LeadImportsModule,
    SpreadsheetImportsModule,
    SuppressionListModule,
  ],
  providers: [ErasureRepository, ErasureService, Suppressions],
  exports: [ErasureService, Suppressions],
})
export class PrivacyModule {}
