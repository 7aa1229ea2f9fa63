/**
 * The delivery/http feature's face (docs/architecture.md#folders): what other features import from
 * `src/delivery/http/`.
 */
export * from './delivery-ledger.dto';
export * from './delivery-log.dto';
