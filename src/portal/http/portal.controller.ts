import { Body, Get, HttpCode, Post, Put, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CampaignsService } from '../../campaigns';
import { ApiError } from '../../common/api-error';
import {
  ApiCsrfHeader,
  checkedInput,
  CurrentActor,
  DashboardAccess,
  DashboardController,
  DashboardErrorResponses,
  type DashboardActor,
} from '../../dashboard-kernel';
import { PortalLinks, type PortalSession } from '..';
import {
  PortalExchangeRequestDto,
  PortalExchangeResponseDto,
  PortalOriginsDto,
} from './portal-dashboard.dto';

/** An embedded portal session's scope as answered. */
export interface PortalSessionScope {
  link_id: string;
  role: 'admin' | 'viewer';
  campaign_ids: number[] | null;
  pages: string[];
  theme: PortalSession['theme'];
  parent_origin: string;
  subject_id: string;
  expires_at: Date;
}

function scopeOf(session: PortalSession): PortalSessionScope {
  return {
    link_id: session.linkId,
    role: session.role,
    campaign_ids: session.campaignIds,
    pages: session.pages,
    theme: session.theme,
    parent_origin: session.parentOrigin,
    subject_id: session.subjectId,
    expires_at: session.expiresAt,
  };
}

/**
 * The embedded portal's dashboard route (docs/dashboard.md#embedding-the-portal): the one
 * exchange of a link for a session held in the portal page's memory, answered with the
 * session's scope (a reload of the page cannot exchange again: the host mints a new link).
 */
@ApiTags('portal')
@DashboardController('portal')
export class PortalController {
  constructor(private readonly portals: PortalLinks) {}

  /**
   * Exchanges a link's secret, once, for an embedded session's token. Like the sign-in, it
   * takes no session and needs `X-CSRF-Token: sign-in` from the service's own origin; a second
   * exchange, an expired or revoked link and a wrong secret all answer
   * `401 portal_session_expired`.
   */
  @Post('exchange')
  @HttpCode(200)
  @DashboardAccess('sign-in')
  @ApiOperation({
    summary: 'Exchange a portal link for a session',
    operationId: 'exchangePortalLink',
  })
  @ApiCsrfHeader()
  @ApiBody({ type: PortalExchangeRequestDto })
  @ApiOkResponse({ type: PortalExchangeResponseDto })
  @DashboardErrorResponses(401, 403, 415, 422, 500, 503)
  async exchange(
    @Body() body: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ): Promise<{ token: string; session: PortalSessionScope }> {
    const input = checkedInput(PortalExchangeRequestDto, body);
    const exchanged = await this.portals.exchange(input.link_id, input.secret, request.ip);
    if (exchanged === null) {
      throw new ApiError(
        401,
        'portal_session_expired',
        'This portal link is unknown, used already, expired or revoked',
      );
    }
    return { token: exchanged.token, session: scopeOf(exchanged.session) };
  }
}

/**
 * `GET` and `PUT /dashboard/api/account/portal-origins` (docs/dashboard.md#embedding-the-portal):
 * the origins allowed to frame the account's portal. Changing them is recorded as
 * `account.portal_origins_update`. Portal sessions cannot reach these routes.
 */
@ApiTags('account')
@DashboardController('account')
export class PortalOriginsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get('portal-origins')
  @DashboardAccess('any')
  @ApiOperation({ summary: 'Read the account’s portal origins', operationId: 'getPortalOrigins' })
  @ApiOkResponse({ type: PortalOriginsDto })
  @DashboardErrorResponses(401, 403, 500, 503)
  async get(@CurrentActor() actor: DashboardActor): Promise<{ origins: string[] }> {
    return { origins: await this.campaigns.portalOrigins(actor.accountId) };
  }

  @Put('portal-origins')
  @HttpCode(200)
  @DashboardAccess('admin')
  @ApiOperation({ summary: 'Set the account’s portal origins', operationId: 'setPortalOrigins' })
  @ApiCsrfHeader()
  @ApiBody({ type: PortalOriginsDto })
  @ApiOkResponse({ type: PortalOriginsDto, description: 'The origins as stored' })
  @DashboardErrorResponses(401, 403, 415, 422, 500, 503)
  async set(
    @CurrentActor() actor: DashboardActor,
    @Body() body: Record<string, unknown>,
  ): Promise<{ origins: string[] }> {
    const input = checkedInput(PortalOriginsDto, body);
    return {
      origins: await this.campaigns.setPortalOrigins(actor.accountId, input.origins, actor),
    };
  }
}
