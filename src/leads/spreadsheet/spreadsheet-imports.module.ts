import { Module } from '@nestjs/common';
import { CampaignsModule } from '../../campaigns/campaigns.module';
import { LeadsModule } from '../leads.module';
import { SpreadsheetImportRunner } from './spreadsheet-import.runner';
import { SpreadsheetImports } from './spreadsheet-imports.service';

/** Spreadsheet imports' side of the dashboard: upload, preview, start, cancel, reads. */
@Module({
  imports: [CampaignsModule],
  providers: [SpreadsheetImports],
  exports: [SpreadsheetImports],
})
export class SpreadsheetImportsModule {}

/**
 * The worker's side: runs started spreadsheet imports chunk by chunk through the lead import
 * service (docs/dashboard.md#spreadsheet-imports). In every process that runs the worker.
 */
@Module({
  imports: [CampaignsModule, LeadsModule],
  providers: [SpreadsheetImportRunner],
  exports: [SpreadsheetImportRunner],
})
export class SpreadsheetImportWorkerModule {}
