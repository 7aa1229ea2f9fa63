import { Module } from '@nestjs/common';
import { DeliveryOwnershipRepository } from './delivery-ownership.repository';
import { DeliveryOwnership } from './delivery-ownership.service';

/**
 * {@link DeliveryOwnership} as a module of its own: it needs only the `DataSource`, so the
 * dashboard imports it without the delivery engine's providers.
 */
@Module({
  providers: [DeliveryOwnershipRepository, DeliveryOwnership],
  exports: [DeliveryOwnership],
})
export class DeliveryOwnershipModule {}
