import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LeadImport, LeadImportRejection } from '..';
import { ImportRejectionRetention } from './import-rejection-retention.service';
import { ImportRejectionsRepository } from './import-rejections.repository';
import { LeadImportsRepository } from './lead-import-history.repository';
import { LeadImports } from './lead-import-history.service';

/**
 * The imports and their rejected rows (docs/architecture.md#domain-modules): owns `lead_import`
 * and `lead_import_rejection`, written by the lead import through {@link LeadImports} in its
 * transaction and read by the dashboard's import history and the spreadsheet imports.
 */
@Module({
  imports: [
    // The entities its relations name (the uploader's API key or dashboard user, the
    // spreadsheet import) are registered by the process root (ENTITY_METADATA, src/entities.ts).
    TypeOrmModule.forFeature([LeadImport, LeadImportRejection]),
  ],
  // ImportRejectionRetention is a `@RetentionParticipant`: the delivery worker's retention pass
  // finds it in any process that loads this module (docs/operations.md#retention).
  providers: [
    LeadImportsRepository,
    LeadImports,
    ImportRejectionsRepository,
    ImportRejectionRetention,
  ],
  exports: [LeadImports],
})
export class LeadImportsModule {}
