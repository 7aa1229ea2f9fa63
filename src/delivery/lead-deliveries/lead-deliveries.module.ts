import { Module } from '@nestjs/common';
import { LeadDeliveriesRepository } from './lead-deliveries.repository';
import { LeadDeliveries } from './lead-deliveries.service';

/** {@link LeadDeliveries} as a module of its own: it needs only the `DataSource`. */
@Module({
  providers: [LeadDeliveriesRepository, LeadDeliveries],
  exports: [LeadDeliveries],
})
export class LeadDeliveriesModule {}
