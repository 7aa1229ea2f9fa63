/**
 * The face of `src/leads/spreadsheet-worker/` (docs/dashboard.md#spreadsheet-imports): the
 * worker's spreadsheet import runner. Other folders import this file only.
 */
export { SpreadsheetImportWorkerModule } from './spreadsheet-import-worker.module';
export {
  SpreadsheetImportRunner,
  SPREADSHEET_CHUNK_SIZE,
  SPREADSHEET_LEASE_MS,
  SPREADSHEET_POLL_MS,
} from './spreadsheet-import.runner';
