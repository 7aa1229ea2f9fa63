/**
 * The leads feature's face (docs/architecture.md#folders): what other features import from
 * `src/leads/`.
 */
export * from './lead-compliance.constants';
export * from './lead-fields.constants';
export * from './lead-import-rejection.entity';
export * from './lead-import.entity';
export * from './lead-upload';
export * from './lead.entity';
export * from './spreadsheet-import.entity';
