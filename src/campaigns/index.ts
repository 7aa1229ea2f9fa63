/**
 * The campaigns feature's face (docs/architecture.md#folders): what other features import from
 * `src/campaigns/`.
 */
export * from './account.entity';
export * from './campaign-errors';
export * from './campaign.entity';
export * from './campaigns.module';
export * from './campaigns.service';
export * from './portal-origins';
