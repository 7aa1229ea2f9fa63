import { Get, Param, Query, UseInterceptors } from '@nestjs/common';
import { ViewerContactMask } from '../../privacy/http';
import { ApiOkResponse, ApiOperation, ApiTags, type ApiQueryOptions } from '@nestjs/swagger';
import { CampaignsService } from '../../campaigns';
import { NotFoundError } from '../../common/domain-error';
import { AppConfig } from '../../config/app-config';
import {
  DEFAULT_TIMELINE_LIMIT,
  LeadDeliveries,
  MAX_TIMELINE_LIMIT,
  type LeadDelivery,
} from '../../delivery/lead-deliveries';
import type { SerializesTo } from '../../dashboard-kernel';
import { LeadImports, type LeadImportView } from '../history';
import {
  LeadDirectory,
  type LeadSearchPage,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_TEXT,
  SEARCH_FIELDS,
} from '../search';
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
} from '../../dashboard-kernel';
import {
  LeadDeliveriesQueryDto,
  LeadDeliveryPageDto,
  LeadDetailDto,
  LeadSearchPageDto,
  LeadSearchQueryDto,
  type LeadSummaryDto,
} from './lead.dto';
import { ownedThrough, type Owned } from '../../common/owned-id';

const cursorQuery: ApiQueryOptions = {
  name: 'cursor',
  required: false,
  schema: { type: 'string' },
  description: 'The `next_cursor` of the previous page, unchanged',
};

const LEAD_SEARCH_QUERY: ApiQueryOptions[] = [
  {
    name: 'q',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: MAX_SEARCH_TEXT },
    description:
      'A phone in any format of the campaign’s region (the whole number), or the start of an email or of a name (any case)',
  },
  {
    name: 'field',
    required: false,
    enum: SEARCH_FIELDS,
    description:
      'What `q` is; when absent, `email` if it has an `@`, `phone` if it is digits and phone punctuation, else `name`',
  },
  {
    name: 'limit',
    required: false,
    schema: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_SEARCH_LIMIT,
      default: DEFAULT_SEARCH_LIMIT,
    },
  },
  cursorQuery,
];

/** The lead page's answer: the lead, its campaign's name and its import. */
export interface LeadDetail extends SerializesTo<LeadSummaryDto, 'created_at'> {
  campaign_name: string;
  import: LeadImportView;
}

/** A delivery of the timeline with the endpoint it went to. */
export type LeadTimelineDelivery = Omit<LeadDelivery, 'endpoint_id'> & {
  endpoint: { id: number; url: string; description: string | null };
};

/**
 * The dashboard's lead search and lead page (docs/dashboard.md#leads): a campaign's leads by
 * phone, email or name; one lead with its import's compliance record; the lead's webhook
 * deliveries with their attempts. Any role reads them. Each route declares its campaign or lead
 * id, so the guard answers another account's with `404`, like one that does not exist.
 */
@ApiTags('leads')
@DashboardController('')
export class LeadDirectoryController {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly leads: LeadDirectory,
    private readonly deliveries: LeadDeliveries,
    private readonly endpoints: WebhookEndpointAdmin,
    private readonly imports: LeadImports,
    private readonly config: AppConfig,
  ) {}

  /** Leads of the campaign matching `q`, in the search's order, keyset-paged. */
  @Get('campaigns/:campaign_id/leads')
  @UseInterceptors(ViewerContactMask)
  @DashboardAccess('any', { resource: 'campaign', param: 'campaign_id' })
  @ApiOperation({
    summary: 'Search a campaign’s leads by phone, email or name',
    operationId: 'searchLeads',
  })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiQueries(LEAD_SEARCH_QUERY)
  @ApiOkResponse({ type: LeadSearchPageDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  async search(
    @OwnedParam('campaign_id') campaignId: Owned<'campaign'>,
    @Query() query: Record<string, unknown>,
  ): Promise<LeadSearchPage> {
    // The region the phones are read in.
    const campaign = await this.campaigns.scopeOf(campaignId);
    return this.leads.search(
      campaign.id,
      campaign.defaultRegion,
      checkedInput(LeadSearchQueryDto, query),
    );
  }

  /** One lead with its campaign's name and the compliance record of its import. */
  @Get('leads/:lead_id')
  @UseInterceptors(ViewerContactMask)
  @DashboardAccess('any', { resource: 'lead', param: 'lead_id' })
  @ApiOperation({ summary: 'Read one lead with its import', operationId: 'getLead' })
  @ApiIdParam('lead_id', 'Lead id')
  @ApiOkResponse({ type: LeadDetailDto })
  @DashboardErrorResponses(400, 401, 404, 500, 503)
  async get(@OwnedParam('lead_id') id: Owned<'lead'>): Promise<LeadDetail> {
    const lead = await this.lead(id);
    const campaign = await this.campaigns.findCampaign(
      ownedThrough(id, 'campaign', lead.campaign_id),
    );
    if (!campaign) throw new NotFoundError(`lead ${id} does not exist`);
    return {
      ...lead,
      campaign_name: campaign.name,
      // The import as the import history shows it (docs/dashboard.md#imports).
      import: await this.imports.find(ownedThrough(id, 'import', lead.import_id)),
    };
  }

  /** The lead's webhook deliveries, newest first, each with its attempts. */
  @Get('leads/:lead_id/deliveries')
  @UseInterceptors(ViewerContactMask)
  @DashboardAccess('any', { resource: 'lead', param: 'lead_id' })
  @ApiOperation({
    summary: 'List the webhook deliveries about a lead, with their attempts',
    operationId: 'listLeadDeliveries',
  })
  @ApiIdParam('lead_id', 'Lead id')
  @ApiQueries([
    {
      name: 'limit',
      required: false,
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_TIMELINE_LIMIT,
        default: DEFAULT_TIMELINE_LIMIT,
      },
    },
    cursorQuery,
  ])
  @ApiOkResponse({ type: LeadDeliveryPageDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  async deliveriesOf(
    @Param('lead_id', DashboardIdPipe) id: number,
    @Query() query: Record<string, unknown>,
  ): Promise<{
    items: LeadTimelineDelivery[];
    next_cursor: string | null;
    retention_days: number;
  }> {
    const lead = await this.lead(id);
    const page = await this.deliveries.page(
      lead.campaign_id,
      lead.id,
      checkedInput(LeadDeliveriesQueryDto, query),
    );
    const endpoints = new Map(
      (await this.endpoints.list(lead.campaign_id)).map((e) => [e.id, e] as const),
    );
    const items: LeadTimelineDelivery[] = [];
    for (const { endpoint_id: endpointId, ...delivery } of page.items) {
      const endpoint = endpoints.get(endpointId);
      // An endpoint deleted since the page was read takes its deliveries with it.
      if (!endpoint) continue;
      items.push({
        ...delivery,
        endpoint: { id: endpoint.id, url: endpoint.url, description: endpoint.description },
      });
    }
    return {
      items,
      next_cursor: page.next_cursor,
      retention_days: this.config.deliveryRetentionDays,
    };
  }

  /** Lead `id`, which the guard found of the session's account; `404` if gone since. */
  private async lead(id: number): Promise<SerializesTo<LeadSummaryDto, 'created_at'>> {
    const lead = await this.leads.find(id);
    if (!lead) throw new NotFoundError(`lead ${id} does not exist`);
    return lead;
  }
}
