import { Body, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CampaignsService } from '..';
import { WebhookEndpointAdmin } from '../../webhooks';
import type { WebhookEndpointDetail } from '../../webhooks';
import {
  DashboardAccess,
  DashboardController,
  CurrentActor,
  type DashboardActor,
  ApiCsrfHeader,
  ApiIdParam,
  DashboardErrorResponses,
  checkedInput,
  OwnedParam,
  NulCheckedByRoute,
  PortalAccess,
  SessionCampaigns,
} from '../../dashboard-kernel';
import { DashboardCampaignDto, type DashboardCampaign } from './campaign.dto';
import {
  CreatedEndpointDto,
  CreateEndpointRequestDto,
  DashboardEndpointDto,
} from '../../webhooks/http';
import { ownedThrough, type Owned } from '../../common/owned-id';

/**
 * `/dashboard/api/campaigns`: the account's campaigns and, per campaign, its webhook endpoints
 * (docs/dashboard.md#routes). Every campaign id is declared with `@DashboardAccess`, so the
 * guard answers another account's with `404`, like one that does not exist, before the route
 * reads its body.
 */
@ApiTags('campaigns')
@DashboardController('campaigns')
export class CampaignsController {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly endpoints: WebhookEndpointAdmin,
  ) {}

  /**
   * The account's campaigns, oldest first, each with how many endpoints it has; for a portal
   * session, only its campaigns.
   */
  @Get()
  @DashboardAccess('any')
  @PortalAccess('endpoints', 'deliveries')
  @ApiOperation({ summary: 'List the account’s campaigns', operationId: 'listCampaigns' })
  @ApiOkResponse({ type: [DashboardCampaignDto] })
  @DashboardErrorResponses(401, 500, 503)
  async list(
    @CurrentActor() actor: DashboardActor,
    @SessionCampaigns() scope: number[] | null,
  ): Promise<DashboardCampaign[]> {
    const campaigns = (await this.campaigns.listCampaigns(actor.accountId)).filter(
      (campaign) => scope === null || scope.includes(campaign.id),
    );
    const counts = await this.endpoints.countByCampaign(campaigns.map((c) => c.id));
    return campaigns.map((campaign) => ({
      id: campaign.id,
      name: campaign.name,
      default_region: campaign.defaultRegion,
      created_at: campaign.createdAt,
      endpoint_count: counts.get(campaign.id) ?? 0,
    }));
  }

  /** The campaign's endpoints ordered by id, each with its delivery health. */
  @Get(':campaign_id/endpoints')
  @DashboardAccess('any', { resource: 'campaign', param: 'campaign_id' })
  @PortalAccess('endpoints', 'deliveries')
  @ApiOperation({
    summary: 'List a campaign’s webhook endpoints with their health',
    operationId: 'listEndpoints',
  })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiOkResponse({ type: [DashboardEndpointDto] })
  @DashboardErrorResponses(400, 401, 404, 500, 503)
  listEndpoints(
    @OwnedParam('campaign_id') campaignId: Owned<'campaign'>,
  ): Promise<WebhookEndpointDetail[]> {
    return this.endpoints.listOfCampaign(campaignId);
  }

  /**
   * Creates an endpoint with the CLI's rules (`WebhookEndpointAdmin`); answers it with its
   * signing secret (null for an `asymmetric` endpoint: its public key is in the endpoint) and
   * the values of its secret custom headers, shown this once. Recorded as `endpoint.create`
   * (never a secret).
   */
  @Post(':campaign_id/endpoints')
  @HttpCode(201)
  @DashboardAccess('admin', { resource: 'campaign', param: 'campaign_id' })
  @PortalAccess('endpoints')
  // A NUL in a custom header is refused by its own rule, naming the header.
  @NulCheckedByRoute('headers')
  @ApiOperation({ summary: 'Create a webhook endpoint', operationId: 'createEndpoint' })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiCsrfHeader()
  @ApiBody({ type: CreateEndpointRequestDto })
  @ApiCreatedResponse({
    type: CreatedEndpointDto,
    description: 'Created; the secret is shown once',
  })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  async createEndpoint(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('campaign_id') campaignId: Owned<'campaign'>,
    @Body() body: Record<string, unknown>,
  ): Promise<{ endpoint: WebhookEndpointDetail; secret: string | null }> {
    const input = checkedInput(CreateEndpointRequestDto, body);
    const { endpoint, secret } = await this.endpoints.create(
      campaignId,
      {
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        enabled: input.enabled,
        signatureScheme: input.signature_scheme,
        headers: input.headers,
        maxDeliveriesPerSecond: input.max_deliveries_per_second,
        maxInFlight: input.max_in_flight,
        ordering: input.ordering,
        autoRecover: input.auto_recover,
        filter: input.filter,
      },
      actor,
    );
    // The secret header values are answered this once, like the signing secret.
    const detail = await this.endpoints.detail(ownedThrough(campaignId, 'endpoint', endpoint.id));
    return { endpoint: { ...detail, custom_headers: endpoint.custom_headers }, secret };
  }
}
