import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../../audit';
import { CampaignsModule } from '../../campaigns';
import { LeadImportsModule } from '../history';
import { SpreadsheetImport, SpreadsheetImportFilePart } from '..';
import { SpreadsheetFileReader } from './spreadsheet-file-reader.service';
import { SpreadsheetImportsRepository } from './spreadsheet-imports.repository';
import { SpreadsheetImports } from './spreadsheet-imports.service';
import { SpreadsheetTempFiles } from './spreadsheet-temp-files.service';
import { UploadCapacity } from './upload-capacity.service';

/**
 * Spreadsheet imports (docs/dashboard.md#spreadsheet-imports): owns `spreadsheet_import` and
 * `spreadsheet_import_file_part`. Upload, preview, start, cancel and reads for the dashboard,
 * and the leases, progress and stored file the worker's `SpreadsheetImportRunner` needs, all
 * through {@link SpreadsheetImports}. It also holds the process's local spreadsheet files and
 * its parse threads (docs/security.md#spreadsheet-uploads), one set per process whichever side
 * (dashboard, worker or both) uses them. An import's chunks and their rejected rows are read
 * through `LeadImports`.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([SpreadsheetImport, SpreadsheetImportFilePart]),
    CampaignsModule,
    AuditModule,
    LeadImportsModule,
  ],
  providers: [
    SpreadsheetImportsRepository,
    SpreadsheetImports,
    UploadCapacity,
    SpreadsheetTempFiles,
    SpreadsheetFileReader,
  ],
  exports: [SpreadsheetImports],
})
export class SpreadsheetImportsModule {}
