/**
 * The face of `src/leads/search/` (docs/architecture.md#domain-modules): the dashboard's lead
 * directory. Other folders import this file only.
 */
export { LeadDirectoryModule } from './lead-directory.module';
export { LeadDirectory, type LeadSearchPage, type LeadView } from './lead-directory.service';
export * from './lead-search.constants';
export type { LeadSearchQuery } from './lead-search';
