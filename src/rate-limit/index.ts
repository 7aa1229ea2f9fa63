/**
 * The rate-limit feature's face (docs/architecture.md#folders): what other features import from
 * `src/rate-limit/`.
 */
export * from './rate-limit.module';
export * from './sign-in.limiter';
