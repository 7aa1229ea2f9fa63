import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit';
import { DeliveryRecoveryRepository } from './delivery-recovery.repository';
import { DeliveryRecovery, DeliveryRecoveryDelivery } from './delivery-recovery.entity';
import { WebhookEndpointsModule } from '../../webhooks';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveriesModule } from '../deliveries';
import { DeliveryRecoveries } from './delivery-recovery.service';

/**
 * {@link DeliveryRecoveries} for the dashboard: recording, listing and cancelling recoveries.
 * The worker's side (`DeliveryRecoveryRunner`) is in `DeliveryWorkerModule`.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([DeliveryRecovery, DeliveryRecoveryDelivery]),
    DeliveriesModule,
    WebhookEndpointsModule,
    AuditModule,
  ],
  providers: [DeliveryRecoveryRepository, DeliveryRecoveries],
  exports: [DeliveryRecoveries],
})
export class DeliveryRecoveryModule {}
