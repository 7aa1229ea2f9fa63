import { createParamDecorator, Injectable, type ExecutionContext } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log.service';
import type { AuditAction, AuditObjectType } from '../audit/audit-actions';
import type { DashboardRole } from '../users/dashboard-roles';
import { dashboardUnauthorized, type DashboardRequest } from './dashboard-request';

/** Who is asking: the session's user, their account, and the client IP (`TRUST_PROXY` applies). */
export interface DashboardActor {
  accountId: number;
  userId: number;
  email: string;
  role: DashboardRole;
  ip: string;
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
    return { accountId, userId: id, email, role, ip: request.ip };
  },
);

/**
 * Records a change made through the dashboard in the audit log (docs/dashboard.md#audit-log):
 * the session's account, the user as actor, the client IP. `details` never holds a secret
 * (`AuditLog.record` refuses the keys that name one).
 */
@Injectable()
export class DashboardAudit {
  constructor(private readonly audit: AuditLog) {}

  async record(
    actor: DashboardActor,
    action: AuditAction,
    object: { type: AuditObjectType; id: number },
    details?: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record({
      accountId: actor.accountId,
      actor: { type: 'user', userId: actor.userId, email: actor.email },
      ip: actor.ip,
      action,
      objectType: object.type,
      objectId: object.id,
      details,
    });
  }
}
