/**
 * `DeliveryModule` where the features that publish events have always imported it from
 * (docs/architecture.md#publishing-events). It is declared in `src/delivery/outbox/`; new code
 * imports it from `src/delivery/outbox` (its `index.ts` face).
 */
export { DeliveryModule } from './outbox';
