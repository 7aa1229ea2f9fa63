import { Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { ViewerContactMask } from '../../privacy/http';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SerializesTo } from '../../dashboard-kernel';
import { DeliveryService, type AttemptDetail } from '../attempts';
import {
  DashboardAccess,
  DashboardController,
  CurrentActor,
  type DashboardActor,
  ApiCsrfHeader,
  ApiIdParam,
  DashboardErrorResponses,
  DashboardIdPipe,
  PortalAccess,
} from '../../dashboard-kernel';
import { DeliveryAttemptDetailDto, DeliveryAttemptResultDto } from './delivery-log.dto';

/**
 * `GET /dashboard/api/attempts/{attempt_id}` (docs/dashboard.md#attempt-detail): one attempt of
 * the account's delivery logs. The guard checks it through its endpoint (→ campaign →
 * account): another account's attempt is `404` with the same message as one that does not
 * exist.
 */
@ApiTags('delivery-log')
@DashboardController('attempts')
export class AttemptsController {
  constructor(private readonly deliveries: DeliveryService) {}

  /** The attempt with the request as sent (signatures truncated) and the response's start. */
  @Get(':attempt_id')
  @UseInterceptors(ViewerContactMask)
  @DashboardAccess('any', { resource: 'attempt', param: 'attempt_id' })
  @PortalAccess('deliveries')
  @ApiOperation({ summary: 'Read one delivery attempt', operationId: 'getAttempt' })
  @ApiIdParam('attempt_id', 'Attempt id')
  @ApiOkResponse({ type: DeliveryAttemptDetailDto })
  @DashboardErrorResponses(400, 401, 404, 500, 503)
  get(@Param('attempt_id', DashboardIdPipe) id: number): Promise<AttemptDetail> {
    return this.deliveries.attemptDetail(id);
  }
}

/**
 * `POST /dashboard/api/deliveries/{delivery_id}/redeliver` (docs/dashboard.md#routes): a new
 * attempt of a delivery of the account, now, with the same `webhook-id` and body. The guard
 * checks the delivery through its endpoint before anything is sent; another account's delivery
 * is `404` like one that does not exist. Recorded as `delivery.redeliver`.
 */
@ApiTags('delivery-log')
@DashboardController('deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveryService) {}

  @Post(':delivery_id/redeliver')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'delivery', param: 'delivery_id' })
  @PortalAccess('deliveries')
  @ApiOperation({
    summary: 'Redeliver a delivery now (same webhook-id)',
    operationId: 'redeliver',
  })
  @ApiIdParam('delivery_id', 'Delivery id (an attempt’s `delivery_id`)')
  @ApiCsrfHeader()
  @ApiOkResponse({
    type: DeliveryAttemptResultDto,
    description: 'The new attempt, whatever the receiver answered (`success` tells)',
  })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 500, 503)
  async redeliver(
    @CurrentActor() actor: DashboardActor,
    @Param('delivery_id', DashboardIdPipe) id: number,
  ): Promise<SerializesTo<DeliveryAttemptResultDto, 'attempted_at'>> {
    return this.deliveries.redeliver(id, actor);
  }
}
