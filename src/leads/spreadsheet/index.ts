/**
 * The face of `src/leads/spreadsheet/` (docs/dashboard.md#spreadsheet-imports): spreadsheet
 * imports, their tables' entities, errors and limits. Other folders import this file only.
 */
export { SpreadsheetImportsModule } from './spreadsheet-imports.module';
export {
  SpreadsheetImports,
  SPREADSHEET_LIST_LIMIT,
  SPREADSHEET_MAX_BYTES,
  type PreviewRow,
  type SpreadsheetImportSummary,
  type SpreadsheetImportView,
  type StartOptions,
} from './spreadsheet-imports.service';
export type { ChunkProgress, ClaimedImport } from './spreadsheet-imports.repository';
export { IMPORT_PARSE_BUDGET } from './spreadsheet-limits';
export { FileTooLargeError } from './spreadsheet-temp-files.service';
export { UploadCapacityError } from './upload-capacity.service';
export {
  SPREADSHEET_IMPORT_STATUSES,
  SpreadsheetImport,
  SpreadsheetImportFilePart,
  type ColumnMapping,
  type SpreadsheetFormat,
  type SpreadsheetImportStatus,
} from '..';
