import { Body, Controller, Delete, HttpCode, Param, Post, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentPrincipal, type AuthPrincipal } from '../../auth';
import { CampaignNotFoundError } from '../../campaigns';
import { ApiError } from '../../common/api-error';
import { ApiErrorResponses } from '../../common/error-response.dto';
import { PortalLinks } from '..';
import { PortalSessionDto, PortalSessionRequestDto } from './portal-session.dto';

/** The answer of a mint: the link's id, its URL (secret in the fragment) and its end. */
export interface MintedPortalSession {
  id: string;
  url: string;
  expires_at: Date;
}

/**
 * `POST` and `DELETE /api/v1/portal/sessions` (docs/api.md#portal-sessions): the platform's
 * backend mints a single-use portal link for one of its users, limited to the token's campaigns,
 * and revokes it (with the session made from it). Both are recorded in the audit log under the
 * API key's prefix.
 */
@ApiTags('portal')
@ApiBearerAuth()
@Controller('portal/sessions')
export class PortalSessionsController {
  constructor(private readonly portals: PortalLinks) {}

  /**
   * Mints a link. 403 for a campaign the token may not use (another account's included), 422
   * for a bad field or a `parent_origin` the account has not registered; nothing is written.
   */
  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Mint a portal link', operationId: 'createPortalSession' })
  @ApiBody({ type: PortalSessionRequestDto })
  @ApiCreatedResponse({ type: PortalSessionDto })
  @ApiErrorResponses(400, 401, 403, 413, 415, 422, 429, 500, 503)
  async create(
    @CurrentPrincipal() principal: AuthPrincipal,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<MintedPortalSession> {
    try {
      const link = await this.portals.mint(
        {
          accountId: principal.accountId,
          campaignIds: principal.campaignIds,
          keyPrefix: principal.keyPrefix,
        },
        body,
        {
          type: 'api_key',
          accountId: principal.accountId,
          keyPrefix: principal.keyPrefix,
          ip: request.ip,
        },
      );
      return {
        id: link.id,
        url: `${request.protocol}://${request.host}/portal/${link.id}#${link.secret}`,
        expires_at: link.expiresAt,
      };
    } catch (error) {
      // The public API's campaign rule (docs/api.md#errors): one 403 whatever the reason.
      if (error instanceof CampaignNotFoundError) {
        throw ApiError.forbidden(`This token may not use campaign ${error.campaignId}`);
      }
      throw error;
    }
  }

  /** Revokes a link of the token's account and ends its session at once. */
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke a portal link and its session',
    operationId: 'revokePortalSession',
  })
  @ApiParam({
    name: 'id',
    description: 'The link’s id',
    schema: { type: 'string', format: 'uuid' },
  })
  @ApiNoContentResponse({ description: 'Revoked (or revoked already)' })
  @ApiErrorResponses(401, 404, 429, 500, 503)
  async revoke(
    @CurrentPrincipal() principal: AuthPrincipal,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.portals.revoke(id, principal.accountId, {
      type: 'api_key',
      accountId: principal.accountId,
      keyPrefix: principal.keyPrefix,
      ip: request.ip,
    });
  }
}
