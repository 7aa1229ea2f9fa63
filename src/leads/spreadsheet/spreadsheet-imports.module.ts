import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { CampaignsModule } from '../../campaigns/campaigns.module';
import { LeadImportModule } from '../upload/lead-import.module';
import { SpreadsheetFileReader } from './spreadsheet-file-reader.service';
import { SpreadsheetImportRunner } from './spreadsheet-import.runner';
import { SpreadsheetImportsRepository } from './spreadsheet-imports.repository';
import { SpreadsheetImports } from './spreadsheet-imports.service';
import { SpreadsheetTempFiles } from './spreadsheet-temp-files.service';
import { UploadCapacity } from './upload-capacity.service';

/**
 * Reading spreadsheet files within their bounds (docs/security.md#spreadsheet-uploads): the
 * process's local spreadsheet files and its parse threads, one set per process whichever side
 * (dashboard, worker or both) uses them.
 */
@Module({
  providers: [SpreadsheetTempFiles, SpreadsheetFileReader],
  exports: [SpreadsheetTempFiles, SpreadsheetFileReader],
})
export class SpreadsheetFilesModule {}

/** Spreadsheet imports' side of the dashboard: upload, preview, start, cancel, reads. */
@Module({
  imports: [CampaignsModule, SpreadsheetFilesModule, AuditModule],
  providers: [SpreadsheetImportsRepository, SpreadsheetImports, UploadCapacity],
  exports: [SpreadsheetImports],
})
export class SpreadsheetImportsModule {}

/**
 * The worker's side: runs started spreadsheet imports chunk by chunk through the lead import
 * service (docs/dashboard.md#spreadsheet-imports). In every process that runs the worker.
 */
@Module({
  imports: [CampaignsModule, LeadImportModule, SpreadsheetFilesModule],
  providers: [SpreadsheetImportsRepository, SpreadsheetImportRunner],
  exports: [SpreadsheetImportRunner],
})
export class SpreadsheetImportWorkerModule {}
