import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type ApiQueryOptions } from '@nestjs/swagger';
import { DeliveryStatsService, STATS_WINDOWS, type DeliveryStats } from '../delivery/analytics';
import { WebhookEndpointAdmin } from '../webhooks/webhook-endpoint-admin.service';
import { DashboardAccess, DashboardController } from './dashboard-access';
import { CurrentActor, type DashboardActor } from './dashboard-actor';
import { ApiIdParam, ApiQueries } from './dashboard-docs';
import { DashboardErrorResponses } from './dashboard-error-responses';
import { checkedInput, DashboardIdPipe } from './dashboard-input';
import { DeliveryStatsDto, DeliveryStatsQueryDto } from './dto/delivery-stats.dto';

const STATS_QUERY: ApiQueryOptions[] = [
  {
    name: 'window',
    required: false,
    enum: Object.keys(STATS_WINDOWS),
    description:
      'The last hour (by minute), 24 hours or 7 days (by hour), or 30 days (by day); default 24h',
  },
];

const DEFAULT_WINDOW = '24h';

/**
 * `GET /dashboard/api/endpoints/{endpoint_id}/stats` (docs/delivery-analytics.md#the-dashboards-routes):
 * an endpoint's delivery figures and chart points over a window. Another account's endpoint is
 * `404` like one that does not exist.
 */
@ApiTags('delivery-analytics')
@DashboardController('endpoints')
export class EndpointStatsController {
  constructor(private readonly stats: DeliveryStatsService) {}

  @Get(':endpoint_id/stats')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary: 'Read an endpoint’s delivery figures and charts',
    operationId: 'getEndpointStats',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiQueries(STATS_QUERY)
  @ApiOkResponse({ type: DeliveryStatsDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  get(
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Query() query: Record<string, unknown>,
  ): Promise<DeliveryStats> {
    const { window } = checkedInput(DeliveryStatsQueryDto, query);
    return this.stats.of([id], window ?? DEFAULT_WINDOW);
  }
}

/**
 * `GET /dashboard/api/campaigns/{campaign_id}/stats` (docs/delivery-analytics.md#the-dashboards-routes):
 * the same over all of a campaign's endpoints together. Another account's campaign is `404`.
 */
@ApiTags('delivery-analytics')
@DashboardController('campaigns')
export class CampaignStatsController {
  constructor(
    private readonly stats: DeliveryStatsService,
    private readonly endpoints: WebhookEndpointAdmin,
  ) {}

  @Get(':campaign_id/stats')
  @DashboardAccess('any', { resource: 'campaign', param: 'campaign_id' })
  @ApiOperation({
    summary: 'Read a campaign’s delivery figures and charts (all its endpoints)',
    operationId: 'getCampaignStats',
  })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiQueries(STATS_QUERY)
  @ApiOkResponse({ type: DeliveryStatsDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  async get(
    @CurrentActor() actor: DashboardActor,
    @Param('campaign_id', DashboardIdPipe) campaignId: number,
    @Query() query: Record<string, unknown>,
  ): Promise<DeliveryStats> {
    const { window } = checkedInput(DeliveryStatsQueryDto, query);
    const endpoints = await this.endpoints.listOfAccount(actor.accountId, campaignId);
    return this.stats.of(
      endpoints.map((e) => e.id),
      window ?? DEFAULT_WINDOW,
    );
  }
}
