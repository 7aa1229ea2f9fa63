/**
 * The dashboard-kernel feature's face (docs/architecture.md#folders): what other features import from
 * `src/dashboard-kernel/`.
 */
export * from './csv-download';
export * from './dashboard-access';
export * from './dashboard-actor';
export * from './dashboard-docs';
export * from './dashboard-error-responses';
export * from './dashboard-input';
export * from './owned-param';
export * from './page-query.dto';
export * from './portal-access';
export * from './serializes-to';
