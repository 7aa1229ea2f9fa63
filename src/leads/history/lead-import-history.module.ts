import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from '../../auth/api-key.entity';
import { DashboardUser } from '../../users/dashboard-user.entity';
import { LeadImport } from '../lead-import.entity';
import { LeadImportRejection } from '../lead-import-rejection.entity';
import { LeadImportsRepository } from './lead-import-history.repository';
import { LeadImports } from './lead-import-history.service';

/**
 * The imports and their rejected rows (docs/architecture.md#domain-modules): owns `lead_import`
 * and `lead_import_rejection`, written by the lead import through {@link LeadImports} in its
 * transaction and read by the dashboard's import history and the spreadsheet imports.
 */
@Module({
  imports: [
    // LeadImport names its uploader (an API key, or a dashboard user): TypeORM needs those
    // entities' metadata in every process that writes one (the worker loads no ApiKeysModule
    // nor UsersModule). Its spreadsheet import's entity comes with SpreadsheetImportsModule,
    // loaded beside this module in every process (the dashboard's, the worker's).
    TypeOrmModule.forFeature([LeadImport, LeadImportRejection, ApiKey, DashboardUser]),
  ],
  providers: [LeadImportsRepository, LeadImports],
  exports: [LeadImports],
})
export class LeadImportsModule {}
