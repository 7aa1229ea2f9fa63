import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * The one query of {@link DeliveryOwnership}: which endpoint a delivery belongs to. Kept apart
 * from `DeliveryRepository` so that the dashboard's ownership checks
 * (docs/dashboard.md#access-rules) add nothing to the delivery engine's code.
 */
@Injectable()
export class DeliveryOwnershipRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The endpoint of delivery `deliveryId` (primary key look-up), or null when there is none. */
  async endpointOfDelivery(deliveryId: number): Promise<number | null> {
    const rows: Array<{ endpoint_id: number }> = await this.dataSource.query(
      'SELECT endpoint_id FROM webhook_delivery WHERE id = $1',
      [deliveryId],
    );
    return rows[0]?.endpoint_id ?? null;
  }
}
