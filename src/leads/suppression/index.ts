/**
 * The face of `src/leads/suppression/` (docs/architecture.md#domain-modules): the accounts'
 * suppression lists. Other folders import this file only.
 */
export { SuppressionListModule } from './suppression-list.module';
export { SuppressionList, type PersonIdentifiers } from './suppression-list.service';
export {
  SuppressionEntry,
  SUPPRESSION_KINDS,
  type SuppressionKind,
} from './suppression-entry.entity';
export type { SuppressionHash } from './suppression.repository';
export { normalizeEmailForHash } from './identifier-hash';
