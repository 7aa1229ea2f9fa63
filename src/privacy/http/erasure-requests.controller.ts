import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, type AuthPrincipal } from '../../auth';
import { ApiError } from '../../common/api-error';
import { ApiErrorResponses } from '../../common/error-response.dto';
import { ErasureService, type ErasureReceiptView } from '..';
import { ErasureReceiptDto, ErasureRequestDto } from './erasure.dto';

/**
 * `POST /api/v1/erasure-requests` and `GET /api/v1/erasure-requests/:id` (docs/api.md#erasure-requests,
 * docs/privacy.md#erasure): a data-subject-request tool erases a person with the account's
 * bearer token. A key limited to some campaigns may erase only in one of them.
 */
@ApiTags('privacy')
@ApiBearerAuth()
@Controller('erasure-requests')
export class ErasureRequestsController {
  constructor(private readonly erasures: ErasureService) {}

  /**
   * Erases one person and answers the receipt.
   * @throws ApiError 400 for a body that is not one person's request, 403 for a campaign the key
   *   may not use (or a whole-account erasure with a key limited to campaigns); the service's
   *   InvalidInputError (422) for a bad phone, email or region; nothing is erased then.
   */
  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Erase a person by phone and/or email', operationId: 'createErasure' })
  @ApiBody({ type: ErasureRequestDto })
  @ApiCreatedResponse({ type: ErasureReceiptDto, description: 'Erased; the receipt' })
  @ApiErrorResponses(400, 401, 403, 413, 415, 422, 429, 500, 503)
  async create(
    @Body() body: Record<string, unknown>,
    @CurrentPrincipal() principal: AuthPrincipal,
    @Req() request: FastifyRequest,
  ): Promise<ErasureReceiptView> {
    const allowed = new Set(['campaign_id', 'phone', 'email', 'region', 'add_to_suppression_list']);
    const unknown = Object.keys(body).filter((key) => !allowed.has(key));
    if (unknown.length > 0) {
      throw ApiError.badRequest(
        `unknown field ${unknown[0]}: an erasure request names one person (phone and/or email)`,
      );
    }
    const campaignId = body.campaign_id ?? null;
    if (
      campaignId !== null &&
      !(typeof campaignId === 'number' && Number.isInteger(campaignId) && campaignId > 0)
    ) {
      throw ApiError.invalidCampaignId();
    }
    if (
      principal.campaignIds !== null &&
      (campaignId === null || !principal.campaignIds.includes(campaignId))
    ) {
      throw ApiError.forbidden('This token may erase only in one of its campaigns: name it');
    }
    try {
      return await this.erasures.erase(
        principal.accountId,
        {
          campaignId,
          phone: body.phone,
          email: body.email,
          region: body.region,
          suppress: body.add_to_suppression_list,
        },
        {
          type: 'api_key',
          accountId: principal.accountId,
          apiKeyId: principal.apiKeyId,
          keyPrefix: principal.keyPrefix,
          ip: request.ip,
        },
      );
    } catch (error) {
      // A campaign of another account: the same 403 as a campaign outside the key's list.
      if (error instanceof Error && error.name === 'NotFoundError' && campaignId !== null) {
        throw ApiError.forbidden();
      }
      throw error;
    }
  }

  /** One receipt of the account. @throws ApiError 404 when it is not the account's. */
  @Get(':id')
  @ApiOperation({ summary: 'Read an erasure receipt', operationId: 'getErasure' })
  @ApiParam({
    name: 'id',
    description: 'Receipt id (UUID)',
    schema: { type: 'string', format: 'uuid' },
  })
  @ApiOkResponse({ type: ErasureReceiptDto })
  @ApiErrorResponses(401, 404, 429, 500, 503)
  get(
    @Param('id') id: string,
    @CurrentPrincipal() principal: AuthPrincipal,
  ): Promise<ErasureReceiptView> {
    return this.erasures.get(principal.accountId, id);
  }
}
