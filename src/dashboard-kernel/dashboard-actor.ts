import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { DashboardUserActor, PortalActor } from '../audit';
import type { DashboardRole } from '../users';
import { dashboardUnauthorized, type DashboardRequest } from './dashboard-request';

/**
 * Who is asking: the session's user, or an embedded portal session
 * (docs/dashboard.md#embedding-the-portal: `portal:<subject id>` with the minting key's prefix),
 * their account, their role and the client IP (`TRUST_PROXY` applies). It is the `AuditActor`
 * controllers pass to the domain services, which record the changes they make under it
 * (docs/architecture.md#who-writes-the-audit-log).
 */
export type DashboardActor = (DashboardUserActor | PortalActor) & { role: DashboardRole };

/** A signed-in user as the actor: for the routes portal sessions cannot reach. */
export type DashboardUserActorWithRole = DashboardUserActor & { role: DashboardRole };

/**
 * The signed-in user, or the portal session, of a dashboard request with the client IP: every
 * id a route takes is scoped to `accountId`, and every change is recorded with the user (or
 * `portal:<subject id>`) and the IP (docs/dashboard.md#audit-log).
 */
export const CurrentActor = createParamDecorator(
  (_data: unknown, context: ExecutionContext): DashboardActor => {
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    const portal = request.portalSession;
    if (portal) {
      return {
        type: 'portal',
        accountId: portal.accountId,
        subjectId: portal.subjectId,
        keyPrefix: portal.keyPrefix,
        role: portal.role,
        ip: request.ip,
      };
    }
    return userActorOf(request);
  },
);

/**
 * The signed-in user of a dashboard request with the client IP, on a route that portal sessions
 * cannot reach (it needs a user: who uploaded a spreadsheet, who saved a transformation).
 */
export const CurrentUserActor = createParamDecorator(
  (_data: unknown, context: ExecutionContext): DashboardUserActorWithRole =>
    userActorOf(context.switchToHttp().getRequest<DashboardRequest>()),
);

function userActorOf(request: DashboardRequest): DashboardUserActorWithRole {
  const session = request.dashboardSession;
  if (!session) throw dashboardUnauthorized();
  const { id, accountId, email, role } = session.user;
  return { type: 'user', accountId, userId: id, email, role, ip: request.ip };
}
