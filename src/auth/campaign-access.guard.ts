import { CanActivate, ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { jsonPositiveInt, pathPositiveInt } from '../common/ids';
import { CampaignsService, CampaignScope } from '../campaigns';
import type { AuthPrincipal } from './auth-principal';

type ScopedRequest = FastifyRequest & { user?: AuthPrincipal; campaignScope?: CampaignScope };

/**
 * Campaign authorisation (docs/api.md#authentication, docs/api.md#errors). Reads `campaign_id` from the path when the
 * route has one, else from the JSON body; checks it is a positive integer (400
 * `invalid_campaign_id`, also for a path `eid`), then that the caller's key may use it. A
 * campaign of another account, one outside the key's campaign list, and one that does not
 * exist all get the same 403, so ids cannot be probed. Runs after the bearer guard.
 */
@Injectable()
export class CampaignAccessGuard implements CanActivate {
  constructor(private readonly campaigns: CampaignsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ScopedRequest>();
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const fromPath = 'campaign_id' in params;
    const campaignId = fromPath
      ? pathPositiveInt(params.campaign_id)
      : jsonPositiveInt((request.body as Record<string, unknown> | undefined)?.campaign_id);
    if (campaignId === null) {
      throw ApiError.invalidCampaignId(
        fromPath
          ? 'campaign_id in the path must be a positive integer'
          : 'campaign_id must be a positive integer',
      );
    }
    if ('eid' in params && pathPositiveInt(params.eid) === null) {
      throw ApiError.invalidCampaignId('eid in the path must be a positive integer');
    }
    const principal = request.user;
    if (!principal) throw ApiError.unauthorized();
    const allowedByKey =
      principal.campaignIds === null || principal.campaignIds.includes(campaignId);
    const scope = allowedByKey
      ? await this.campaigns.findScopeOf(principal.accountId, campaignId)
      : null;
    if (!scope) throw ApiError.forbidden();
    request.campaignScope = scope;
    return true;
  }
}

/** The campaign authorised by {@link CampaignAccessGuard} for this request. */
export const AuthorizedCampaign = createParamDecorator(
  (_data: unknown, context: ExecutionContext): CampaignScope => {
    const scope = context.switchToHttp().getRequest<ScopedRequest>().campaignScope;
    if (!scope) throw new Error('AuthorizedCampaign used on a route without CampaignAccessGuard');
    return scope;
  },
);

/** The caller established by the bearer guard. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthPrincipal => {
    const user = context.switchToHttp().getRequest<ScopedRequest>().user;
    if (!user) throw ApiError.unauthorized();
    return user;
  },
);
