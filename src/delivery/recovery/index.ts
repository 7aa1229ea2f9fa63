/** The face of `src/delivery/recovery/`: bulk recoveries and replays of missed deliveries. */
export { DeliveryRecoveryModule } from './delivery-recovery.module';
export {
  DeliveryRecoveries,
  RECOVERY_LIST_LIMIT,
  parseScope,
  parseSince,
  type DeliveryRecoveryView,
  type RecoveryPreview,
} from './delivery-recovery.service';
export {
  DeliveryRecovery,
  RECOVERY_SCOPES,
  type RecoveryScope,
  type RecoveryStatus,
} from './delivery-recovery.entity';
export type { MovedDelivery } from './delivery-recovery.repository';
