import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import {
  toEndpointView,
  toHealthView,
  type WebhookEndpointHealthView,
  type WebhookEndpointView,
} from './webhook-endpoint.views';

/**
 * The public API's read side of webhook endpoints (docs/api.md#webhook-reads): the campaign's
 * endpoints and one endpoint's delivery health. The caller has authorised the campaign.
 */
@Injectable()
export class WebhookEndpointReads {
  constructor(private readonly repository: WebhookEndpointsRepository) {}

  /** The campaign's endpoints ordered by id, without secrets. */
  async list(campaignId: number): Promise<WebhookEndpointView[]> {
    return (await this.repository.listOfCampaign(campaignId)).map(toEndpointView);
  }

  /**
   * Health of endpoint `endpointId` of `campaignId`, read from its counters (O(1)).
   * @throws NotFoundError when it is not an endpoint of that campaign.
   */
  async health(campaignId: number, endpointId: number): Promise<WebhookEndpointHealthView> {
    const endpoint =
      endpointId > MAX_INT4 ? null : await this.repository.findHealth(campaignId, endpointId);
    if (!endpoint)
      throw new NotFoundError(`Campaign ${campaignId} has no webhook endpoint ${endpointId}`);
    return toHealthView(endpoint);
  }
}
