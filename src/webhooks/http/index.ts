/**
 * The webhooks/http feature's face (docs/architecture.md#folders): what other features import from
 * `src/webhooks/http/`.
 */
export * from './endpoint.dto';
