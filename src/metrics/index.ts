/**
 * The metrics feature's face (docs/architecture.md#folders): what other features import from
 * `src/metrics/`.
 */
export * from './metrics.service';
