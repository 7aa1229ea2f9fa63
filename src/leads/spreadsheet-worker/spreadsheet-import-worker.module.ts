import { Module } from '@nestjs/common';
import { CampaignsModule } from '../../campaigns';
import { SpreadsheetImportsModule } from '../spreadsheet';
import { LeadImportModule } from '../upload';
import { SpreadsheetImportRunner } from './spreadsheet-import.runner';

/**
 * The worker's side of spreadsheet imports: runs started imports chunk by chunk through the
 * lead import service (docs/dashboard.md#spreadsheet-imports), reaching the imports' tables and
 * files through `SpreadsheetImports`. In every process that runs the worker. Owns no table.
 */
@Module({
  imports: [CampaignsModule, LeadImportModule, SpreadsheetImportsModule],
  providers: [SpreadsheetImportRunner],
  exports: [SpreadsheetImportRunner],
})
export class SpreadsheetImportWorkerModule {}
