import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { DashboardUserActor } from '../audit';
import type { DashboardRole } from '../users';
import { dashboardUnauthorized, type DashboardRequest } from './dashboard-request';

/**
 * Who is asking: the session's user, their account, their role and the client IP
 * (`TRUST_PROXY` applies). It is the `AuditActor` controllers pass to the domain services,
 * which record the changes they make under it (docs/architecture.md#who-writes-the-audit-log).
 */
export interface DashboardActor extends DashboardUserActor {
  role: DashboardRole;
}

/**
 * The signed-in user of a dashboard request with the client IP: every id a route takes is
 * scoped to `accountId`, and every change is recorded with the user and the IP
 * (docs/dashboard.md#audit-log).
 */
export const CurrentActor = createParamDecorator(
  (_data: unknown, context: ExecutionContext): DashboardActor => {
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    const session = request.dashboardSession;
    if (!session) throw dashboardUnauthorized();
    const { id, accountId, email, role } = session.user;
    return { type: 'user', accountId, userId: id, email, role, ip: request.ip };
  },
);
