/**
 * The account-access feature's face (docs/architecture.md#folders): what other features import from
 * `src/account-access/`.
 */
export * from './account-access.module';
export * from './account-access.service';
