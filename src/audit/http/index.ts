/**
 * The audit/http feature's face (docs/architecture.md#folders): what other features import from
 * `src/audit/http/`.
 */
export * from './audit-log.dto';
