import { Body, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Owned } from '../../common/owned-id';
import {
  ApiCsrfHeader,
  ApiIdParam,
  checkedInput,
  DashboardAccess,
  DashboardController,
  DashboardErrorResponses,
  OwnedParam,
} from '../../dashboard-kernel';
import { DeliveryService } from '../attempts';
import { FilterPreviewDto, FilterPreviewRequestDto } from './filter-preview.dto';

/**
 * `POST /dashboard/api/campaigns/{campaign_id}/filter-preview` (docs/dashboard.md#payload-filter-preview):
 * the endpoint form's "Try it". Checks a payload filter as saving would (422 naming the line,
 * column and problem) and evaluates it on each subscribed type's example and on the
 * campaign's 50 latest events of those types; sends nothing, writes nothing. Admins, as the
 * form that saves the filter. Another account's campaign is `404`.
 */
@ApiTags('endpoints')
@DashboardController('campaigns')
export class FilterPreviewController {
  constructor(private readonly deliveries: DeliveryService) {}

  @Post(':campaign_id/filter-preview')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'campaign', param: 'campaign_id' })
  @ApiOperation({
    summary: 'Try a payload filter on examples and recent events, without sending',
    operationId: 'previewEndpointFilter',
  })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiCsrfHeader()
  @ApiBody({ type: FilterPreviewRequestDto })
  @ApiOkResponse({ type: FilterPreviewDto })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  async preview(
    @OwnedParam('campaign_id') campaignId: Owned<'campaign'>,
    @Body() body: Record<string, unknown>,
  ): Promise<FilterPreviewDto> {
    const input = checkedInput(FilterPreviewRequestDto, body);
    return {
      items: await this.deliveries.filterPreview(campaignId, input.filter, input.events),
    };
  }
}
