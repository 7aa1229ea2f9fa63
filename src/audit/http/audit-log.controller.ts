import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AUDIT_ACTIONS,
  AUDIT_PAGE_DEFAULT,
  AUDIT_PAGE_MAX,
  AUDIT_USER_FILTER_MAX,
  AuditLog,
  type AuditEntryView,
} from '..';
import {
  DashboardAccess,
  DashboardController,
  CurrentActor,
  type DashboardActor,
  ApiQueries,
  DashboardErrorResponses,
  checkedInput,
} from '../../dashboard-kernel';
import { AuditLogPageDto, AuditLogQueryDto } from './audit-log.dto';

/**
 * `GET /dashboard/api/audit-log` (docs/dashboard.md#audit-log): the account's sign-ins and
 * changes (dashboard and CLI), newest first, keyset-paged by `AuditLog.list`, optionally only
 * one action's (`action`) and/or one user's (`user`, an email).
 */
@ApiTags('audit-log')
@DashboardController('audit-log')
export class AuditLogController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @DashboardAccess('any')
  @ApiOperation({ summary: 'Read the audit log', operationId: 'listAuditLog' })
  @ApiQueries([
    {
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: AUDIT_PAGE_MAX, default: AUDIT_PAGE_DEFAULT },
    },
    {
      name: 'cursor',
      required: false,
      schema: { type: 'string' },
      description: 'The `next_cursor` of the previous page, unchanged',
    },
    {
      name: 'action',
      required: false,
      schema: { type: 'string', enum: [...AUDIT_ACTIONS] },
      description: 'Only the entries of this action',
    },
    {
      name: 'user',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: AUDIT_USER_FILTER_MAX },
      description:
        'Only the entries made by the user with this email, whatever its case (failed sign-ins that tried it included)',
      example: 'ada@example.com',
    },
  ])
  @ApiOkResponse({ type: AuditLogPageDto })
  @DashboardErrorResponses(401, 422, 500, 503)
  async list(
    @CurrentActor() actor: DashboardActor,
    @Query() query: Record<string, unknown>,
  ): Promise<{ items: AuditEntryView[]; next_cursor: string | null }> {
    const { limit, cursor, action, user } = checkedInput(AuditLogQueryDto, query);
    const page = await this.audit.list(actor.accountId, cursor, limit, {
      action,
      userEmail: user,
    });
    return { items: page.entries, next_cursor: page.next_cursor };
  }
}
