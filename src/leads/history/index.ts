/**
 * The face of `src/leads/history/` (docs/architecture.md#domain-modules): the imports and their
 * rejected rows. Other folders import this file only.
 */
export { LeadImportsModule } from './lead-import-history.module';
export {
  LeadImports,
  IMPORTS_PAGE_DEFAULT,
  IMPORTS_PAGE_MAX,
  IMPORTS_PAGE_LIMITS,
  REJECTIONS_PAGE_DEFAULT,
  REJECTIONS_PAGE_MAX,
  REJECTIONS_PAGE_LIMITS,
  type LeadImportView,
  type Page,
} from './lead-import-history.service';
export { newLeads, type ImportCounts, type NewLeadImport } from './lead-import-records';
export {
  REJECTION_CSV_COLUMNS,
  SUBMITTED_MAX_CHARS,
  rejectionsCsv,
  rejectionsOf,
  type ImportRejection,
} from './import-rejections';
export { LeadImport } from '..';
export { LeadImportRejection } from '..';
