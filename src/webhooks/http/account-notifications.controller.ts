import { Body, Get, HttpCode, Put } from '@nestjs/common';
import { InvalidInputError } from '../../common/domain-error';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountNotifications, type NotificationSetting } from '..';
import {
  DashboardAccess,
  DashboardController,
  CurrentActor,
  type DashboardActor,
  ApiCsrfHeader,
  DashboardErrorResponses,
  checkedInput,
} from '../../dashboard-kernel';
import {
  NotificationSettingDto,
  NotificationSettingRequestDto,
  UpdatedNotificationSettingDto,
} from './account-notifications.dto';

/**
 * `GET` and `PUT /dashboard/api/account/notifications` (docs/webhooks.md#operational-messages):
 * the URL where the session's account gets operational messages about its endpoints
 * (`endpoint.failing`, `endpoint.disabled`). Changing it is recorded as
 * `account.notifications_update` (the URL, never the secret).
 */
@ApiTags('account')
@DashboardController('account')
export class AccountNotificationsController {
  constructor(private readonly notifications: AccountNotifications) {}

  @Get('notifications')
  @DashboardAccess('any')
  @ApiOperation({
    summary: 'Read the account’s notification URL',
    operationId: 'getNotificationSetting',
  })
  @ApiOkResponse({ type: NotificationSettingDto })
  @DashboardErrorResponses(401, 500, 503)
  get(@CurrentActor() actor: DashboardActor): Promise<NotificationSetting> {
    return this.notifications.setting(actor.accountId);
  }

  /** Sets or removes the URL; a new URL's signing secret is in the answer, this once. */
  @Put('notifications')
  @HttpCode(200)
  @DashboardAccess('admin')
  @ApiOperation({
    summary: 'Set or remove the account’s notification URL',
    operationId: 'setNotificationSetting',
  })
  @ApiCsrfHeader()
  @ApiBody({ type: NotificationSettingRequestDto })
  @ApiOkResponse({ type: UpdatedNotificationSettingDto })
  @DashboardErrorResponses(400, 401, 403, 415, 422, 500, 503)
  async set(
    @CurrentActor() actor: DashboardActor,
    @Body() body: Record<string, unknown>,
  ): Promise<NotificationSetting & { secret?: string }> {
    const input = checkedInput(NotificationSettingRequestDto, body);
    if (input.url === undefined) {
      throw InvalidInputError.field('url', 'is required: an http(s) URL, or null to remove it');
    }
    return this.notifications.set(actor.accountId, input.url, actor);
  }
}
