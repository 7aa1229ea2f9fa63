/** The face of `src/delivery/retention/`: the retention pass. */
export { DeliveryRetentionModule } from './delivery-retention.module';
export {
  DeliveryRetention,
  RETENTION_BATCH,
  type RetentionReport,
} from './delivery-retention.service';
