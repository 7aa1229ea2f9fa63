import { Body, Controller, HttpCode, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import type { AuthPrincipal } from '../auth/auth-principal';
import {
  AuthorizedCampaign,
  CampaignAccessGuard,
  CurrentPrincipal,
} from '../auth/campaign-access.guard';
import type { CampaignScope } from '../campaigns/campaigns.service';
import type { LeadUploadRequest } from './dto/lead-upload-request.dto';
import type { LeadUploadResponse } from './dto/lead-upload-response.dto';
import { LeadImportService } from './lead-import.service';
import { LeadUploadRequestPipe } from './lead-upload-request.pipe';
import {
  IdempotencyInterceptor,
  type IdempotentRequest,
} from '../idempotency/idempotency.interceptor';

/** `POST /api/v1/leads/upload` (spec 2.2–2.4, 4; CONTRACT 4). */
@Controller('leads')
export class LeadsController {
  constructor(private readonly imports: LeadImportService) {}

  /**
   * Uploads a batch of leads into a campaign. Checks run in CONTRACT 2's order: bearer (401),
   * `campaign_id` (400), campaign access (403), compliance (400), `leads` present (400),
   * envelope (422); per-lead problems are reported inside the 202. An `Idempotency-Key` header
   * makes retries safe (CONTRACT 4.5).
   */
  @Post('upload')
  @HttpCode(202)
  @UseGuards(CampaignAccessGuard)
  @UseInterceptors(IdempotencyInterceptor)
  upload(
    @Body(LeadUploadRequestPipe) request: LeadUploadRequest,
    @AuthorizedCampaign() campaign: CampaignScope,
    @CurrentPrincipal() principal: AuthPrincipal,
    @Req() http: IdempotentRequest,
  ): Promise<LeadUploadResponse> {
    return this.imports.importLeads(
      request,
      campaign,
      principal,
      http.ip ?? null,
      http.idempotencyKey,
    );
  }
}
