/**
 * The idempotency feature's face (docs/architecture.md#folders): what other features import from
 * `src/idempotency/`.
 */
export * from './idempotency.interceptor';
export * from './idempotency.module';
export * from './idempotency.service';
