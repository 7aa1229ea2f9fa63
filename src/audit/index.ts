/**
 * The audit feature's face (docs/architecture.md#folders): what other features import from
 * `src/audit/`.
 */
export * from './audit-actions.constants';
export * from './audit-log.service';
export * from './audit.module';
