import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type ApiQueryOptions } from '@nestjs/swagger';
import { DeliveryStatsService, STATS_WINDOWS, type DeliveryStats } from '../analytics';
import { WebhookEndpointAdmin } from '../../webhooks';
import {
  DashboardAccess,
  DashboardController,
  ApiIdParam,
  ApiQueries,
  DashboardErrorResponses,
  checkedInput,
  DashboardIdPipe,
  OwnedParam,
  PortalAccess,
} from '../../dashboard-kernel';
import { DeliveryStatsDto, DeliveryStatsQueryDto } from './delivery-stats.dto';
import type { Owned } from '../../common/owned-id';

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
  @PortalAccess('deliveries')
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
  @PortalAccess('deliveries')
  @ApiOperation({
    summary: 'Read a campaign’s delivery figures and charts (all its endpoints)',
    operationId: 'getCampaignStats',
  })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiQueries(STATS_QUERY)
  @ApiOkResponse({ type: DeliveryStatsDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  async get(
    @OwnedParam('campaign_id') campaignId: Owned<'campaign'>,
    @Query() query: Record<string, unknown>,
  ): Promise<DeliveryStats> {
    const { window } = checkedInput(DeliveryStatsQueryDto, query);
    const endpoints = await this.endpoints.listOfCampaign(campaignId);
    return this.stats.of(
      endpoints.map((e) => e.id),
      window ?? DEFAULT_WINDOW,
    );
  }
}
