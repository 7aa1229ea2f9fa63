/**
 * The webhooks feature's face (docs/architecture.md#folders): what other features may import
 * from `src/webhooks/`.
 */
export * from './signing-keys';
