import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DeliveryAttemptsModule } from '../attempts';
import { DeliveryRetentionRepository } from './delivery-retention.repository';
import { DeliveryRetention } from './delivery-retention.service';

/**
 * The retention pass (docs/operations.md#retention): the attempts' partitions through the
 * attempts' `DeliveryService`, and every `@RetentionParticipant` step of the process, found with
 * `DiscoveryService` (it imports none of their modules). Loaded by `DeliveryWorkerModule` only.
 */
@Module({
  imports: [DiscoveryModule, DeliveryAttemptsModule],
  providers: [DeliveryRetentionRepository, DeliveryRetention],
  exports: [DeliveryRetention],
})
export class DeliveryRetentionModule {}
