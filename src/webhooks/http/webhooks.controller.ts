import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../../common/error-response.dto';
import { AuthorizedCampaign, CampaignAccessGuard } from '../../auth';
import type { CampaignScope } from '../../campaigns';
import { EVENT_TYPES, type EventType, WebhookEndpointReads } from '..';
import type { WebhookEndpointHealthView, WebhookEndpointView } from '..';
import { WebhookEndpointDto, WebhookEndpointHealthDto } from './webhook-endpoint.dto';

/**
 * The read-only webhook operations (docs/api.md rules 3–4, docs/api.md#webhook-reads). Checks run 401 → path ids
 * (400) → campaign access (403) → unknown endpoint (404).
 */
@ApiTags('webhooks')
@ApiBearerAuth()
@ApiParam({
  name: 'campaign_id',
  description: 'Campaign id (positive integer)',
  schema: { type: 'integer', minimum: 1 },
})
@Controller('webhooks/:campaign_id')
@UseGuards(CampaignAccessGuard)
export class WebhooksController {
  constructor(private readonly endpoints: WebhookEndpointReads) {}

  /** The seven subscribable event types, in spec order. */
  @Get('events')
  @ApiOperation({ summary: 'List the subscribable event types', operationId: 'listEventTypes' })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] } } })
  @ApiErrorResponses(400, 401, 403, 429, 500, 503)
  events(): readonly EventType[] {
    return EVENT_TYPES;
  }

  /** The campaign's endpoints ordered by id, without secrets. */
  @Get('endpoints')
  @ApiOperation({
    summary: "List the campaign's webhook endpoints",
    operationId: 'listWebhookEndpoints',
  })
  @ApiOkResponse({ type: [WebhookEndpointDto] })
  @ApiErrorResponses(400, 401, 403, 429, 500, 503)
  list(@AuthorizedCampaign() campaign: CampaignScope): Promise<WebhookEndpointView[]> {
    return this.endpoints.list(campaign.id);
  }

  /** Delivery health of one endpoint of the campaign. */
  @Get('endpoints/:eid/health')
  @ApiOperation({
    summary: "Read a webhook endpoint's delivery health",
    operationId: 'getWebhookEndpointHealth',
  })
  @ApiParam({
    name: 'eid',
    description: 'Endpoint id (positive integer)',
    schema: { type: 'integer', minimum: 1 },
  })
  @ApiOkResponse({ type: WebhookEndpointHealthDto })
  @ApiErrorResponses(400, 401, 403, 404, 429, 500, 503)
  health(
    @AuthorizedCampaign() campaign: CampaignScope,
    @Param('eid') eid: string,
  ): Promise<WebhookEndpointHealthView> {
    return this.endpoints.health(campaign.id, Number(eid));
  }
}
