import { Body, Controller, HttpCode, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import type { AuthPrincipal } from '../../auth';
import { AuthorizedCampaign, CampaignAccessGuard, CurrentPrincipal } from '../../auth';
import { CampaignNotFoundError } from '../../campaigns';
import type { CampaignScope } from '../../campaigns';
import { ApiError } from '../../common/api-error';
import type { LeadUploadRequest } from './lead-upload-request.dto';
import { LeadUploadResponseDto, type LeadUploadResponse } from './lead-upload-response.dto';
import { LeadUploadRequestDto } from './lead-upload-request.dto';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiHeader,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrorResponses } from '../../common/error-response.dto';
import { LeadImportService } from '../upload';
import { LeadUploadRequestPipe } from './lead-upload-request.pipe';
import { IdempotencyInterceptor, type IdempotentRequest } from '../../idempotency';

/** `POST /api/v1/leads/upload` (docs/api.md#lead-upload). */
@ApiTags('leads')
@ApiBearerAuth()
@Controller('leads')
export class LeadsController {
  constructor(private readonly imports: LeadImportService) {}

  /**
   * Uploads a batch of leads into a campaign. Checks run in the order of docs/api.md#errors: bearer (401),
   * `campaign_id` (400), campaign access (403), compliance (400), `leads` present (400),
   * envelope (422); per-lead problems are reported inside the 202. An `Idempotency-Key` header
   * makes retries safe (docs/api.md#idempotent-retries).
   *
   * @throws ApiError 403 `forbidden` when the campaign was deleted during the upload (the
   *   service's `CampaignNotFoundError`); nothing is written.
   */
  @Post('upload')
  @HttpCode(202)
  @UseGuards(CampaignAccessGuard)
  @UseInterceptors(IdempotencyInterceptor)
  @ApiOperation({ summary: 'Upload a batch of leads into a campaign', operationId: 'uploadLeads' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      '1 to 255 characters; a retry with the same key and body replays the first response (24 h)',
  })
  @ApiBody({ type: LeadUploadRequestDto })
  @ApiAcceptedResponse({
    type: LeadUploadResponseDto,
    description: 'Accepted; invalid leads are reported in errors',
  })
  @ApiErrorResponses(400, 401, 403, 409, 413, 415, 422, 429, 500, 503)
  async upload(
    @Body(LeadUploadRequestPipe) request: LeadUploadRequest,
    @AuthorizedCampaign() campaign: CampaignScope,
    @CurrentPrincipal() principal: AuthPrincipal,
    @Req() http: IdempotentRequest,
  ): Promise<LeadUploadResponse> {
    try {
      return await this.imports.importLeads(
        request,
        campaign,
        principal,
        http.ip ?? null,
        http.idempotencyKey,
      );
    } catch (error) {
      // Kept: the global map answers CampaignNotFoundError with 404, the contract with 403.
      // Deleted after the guard's (briefly cached) look-up: the same 403 as any campaign that
      // does not exist (docs/api.md#errors, docs/decisions.md#uploads).
      if (error instanceof CampaignNotFoundError) throw ApiError.forbidden();
      throw error;
    }
  }
}
