/** The face of `src/delivery/lead-deliveries/`: a lead's deliveries (a read model). */
export { LeadDeliveriesModule } from './lead-deliveries.module';
export {
  LeadDeliveries,
  DEFAULT_TIMELINE_LIMIT,
  MAX_TIMELINE_LIMIT,
  type AttemptOutcome,
  type LeadDelivery,
  type LeadDeliveryAttempt,
  type LeadDeliveryPage,
} from './lead-deliveries.service';
