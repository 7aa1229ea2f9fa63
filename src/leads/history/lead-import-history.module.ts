import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LeadImport } from '..';
import { LeadImportRejection } from '..';
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
  providers: [LeadImportsRepository, LeadImports],
  exports: [LeadImports],
})
export class LeadImportsModule {}
