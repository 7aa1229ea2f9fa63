import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { AuthorizedCampaign, CampaignAccessGuard } from '../auth/campaign-access.guard';
import type { CampaignScope } from '../campaigns/campaigns.service';
import { EVENT_TYPES, type EventType } from './event-types';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import type { WebhookEndpointHealthView, WebhookEndpointView } from './webhook-endpoint.views';

/**
 * The read-only webhook operations (spec 4 rules 3–4, CONTRACT 5). Checks run 401 → path ids
 * (400) → campaign access (403) → unknown endpoint (404).
 */
@Controller('webhooks/:campaign_id')
@UseGuards(CampaignAccessGuard)
export class WebhooksController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  /** The seven subscribable event types, in spec order. */
  @Get('events')
  events(): readonly EventType[] {
    return EVENT_TYPES;
  }

  /** The campaign's endpoints ordered by id, without secrets. */
  @Get('endpoints')
  list(@AuthorizedCampaign() campaign: CampaignScope): Promise<WebhookEndpointView[]> {
    return this.endpoints.list(campaign.id);
  }

  /** Delivery health of one endpoint of the campaign. */
  @Get('endpoints/:eid/health')
  health(
    @AuthorizedCampaign() campaign: CampaignScope,
    @Param('eid') eid: string,
  ): Promise<WebhookEndpointHealthView> {
    return this.endpoints.health(campaign.id, Number(eid));
  }
}
