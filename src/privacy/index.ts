/**
 * The privacy feature's face (docs/architecture.md#folders): erasure and the suppression list's
 * management (docs/privacy.md). Other folders import this file only.
 */
export { PrivacyModule } from './privacy.module';
export {
  ErasureService,
  ERASURE_LIST_DEFAULT,
  ERASURE_LIST_MAX,
  type ErasureInput,
  type ErasureReceiptView,
} from './erasure.service';
export {
  Suppressions,
  SUPPRESSION_CSV_MAX_BYTES,
  SUPPRESSION_CSV_MAX_ROWS,
  type SuppressionImportOutcome,
} from './suppressions.service';
export { ErasureReceipt, type ErasureCounts } from './erasure-receipt.entity';
export type { PrivacyActor } from './privacy-actor';
export {
  maskContacts,
  maskContactsInText,
  maskEmail,
  maskPhone,
  maskSampleRows,
} from './contact-mask';
