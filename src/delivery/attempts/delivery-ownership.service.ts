import { Injectable } from '@nestjs/common';
import { DeliveryOwnershipRepository } from './delivery-ownership.repository';

/**
 * Whose a delivery is, for the dashboard's account scoping (docs/dashboard.md#access-rules): a
 * delivery belongs to its endpoint, which belongs to a campaign of an account. This answers the
 * first step only; the caller asks `WebhookEndpointAdmin.requireOfAccount` for the rest, since
 * the delivery code does not read `webhook_endpoint` (docs/architecture.md#layering-rules).
 * Attempts need nothing of the kind: `DeliveryService.attemptDetail` returns its `endpoint_id`.
 */
@Injectable()
export class DeliveryOwnership {
  constructor(private readonly repository: DeliveryOwnershipRepository) {}

  /**
   * The endpoint of delivery `deliveryId`.
   * @returns null when no delivery has that id (ids beyond PostgreSQL's `bigint` included).
   */
  async endpointOfDelivery(deliveryId: number): Promise<number | null> {
    if (!Number.isSafeInteger(deliveryId) || deliveryId < 1) return null;
    return this.repository.endpointOfDelivery(deliveryId);
  }
}
