/**
 * The face of `src/leads/upload/` (docs/architecture.md#domain-modules): the lead import domain
 * (screening, the import service, the leads' writer). Other folders import this file only.
 */
export { LeadImportModule } from './lead-import.module';
export { LeadImportService, type LeadUploader, type SpreadsheetChunk } from './lead-import.service';
export {
  LEAD_FIELDS,
  normalizePhone,
  validateLead,
  type LeadCheck,
  type LeadField,
  type NormalizedLead,
} from './lead-validator';
export type { LeadUploadError, LeadUploadRequest, LeadUploadResponse } from '..';
export { Lead } from '..';
export { leadEvents } from './lead-events';
