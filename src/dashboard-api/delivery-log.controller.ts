import { Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '../common/domain-error';
import type { AttemptRecord } from '../delivery/attempts/delivery.repository';
import { DeliveryOwnership } from '../delivery/attempts/delivery-ownership.service';
import { DeliveryService, type AttemptDetail } from '../delivery/attempts/delivery.service';
import { WebhookEndpointAdmin } from '../webhooks/webhook-endpoint-admin.service';
import { DashboardAccess, DashboardController } from './dashboard-access';
import { CurrentActor, type DashboardActor } from './dashboard-actor';
import { ApiCsrfHeader, ApiIdParam } from './dashboard-docs';
import { DashboardErrorResponses } from './dashboard-error-responses';
import { DashboardIdPipe } from './dashboard-input';
import { DeliveryAttemptDetailDto, DeliveryAttemptResultDto } from './dto/delivery-log.dto';

/**
 * Whether endpoint `endpointId` is one of the account's: false for another account's and for
 * one that no longer exists (the same answer).
 */
async function endpointIsOwned(
  endpoints: WebhookEndpointAdmin,
  accountId: number,
  endpointId: number,
): Promise<boolean> {
  try {
    await endpoints.requireOfAccount(accountId, endpointId);
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

/**
 * `GET /dashboard/api/attempts/{attempt_id}` (docs/dashboard.md#attempt-detail): one attempt of
 * the account's delivery logs, scoped through its endpoint (→ campaign → account). Another
 * account's attempt is `404` with the same message as one that does not exist.
 */
@ApiTags('delivery-log')
@DashboardController('attempts')
export class AttemptsController {
  constructor(
    private readonly deliveries: DeliveryService,
    private readonly endpoints: WebhookEndpointAdmin,
  ) {}

  /** The attempt with the request as sent (signatures truncated) and the response's start. */
  @Get(':attempt_id')
  @DashboardAccess('any')
  @ApiOperation({ summary: 'Read one delivery attempt', operationId: 'getAttempt' })
  @ApiIdParam('attempt_id', 'Attempt id')
  @ApiOkResponse({ type: DeliveryAttemptDetailDto })
  @DashboardErrorResponses(400, 401, 404, 500, 503)
  async get(
    @CurrentActor() actor: DashboardActor,
    @Param('attempt_id', DashboardIdPipe) id: number,
  ): Promise<AttemptDetail> {
    const detail = await this.deliveries.attemptDetail(id);
    if (!(await endpointIsOwned(this.endpoints, actor.accountId, detail.endpoint_id))) {
      throw new NotFoundError(`attempt ${id} does not exist`);
    }
    return detail;
  }
}

/**
 * `POST /dashboard/api/deliveries/{delivery_id}/redeliver` (docs/dashboard.md#routes): a new
 * attempt of a delivery of the account, now, with the same `webhook-id` and body. Scoped
 * through the delivery's endpoint before anything is sent; another account's delivery is `404`
 * like one that does not exist. Recorded as `delivery.redeliver`.
 */
@ApiTags('delivery-log')
@DashboardController('deliveries')
export class DeliveriesController {
  constructor(
    private readonly deliveries: DeliveryService,
    private readonly ownership: DeliveryOwnership,
    private readonly endpoints: WebhookEndpointAdmin,
  ) {}

  @Post(':delivery_id/redeliver')
  @HttpCode(200)
  @DashboardAccess('admin')
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
  ): Promise<AttemptRecord> {
    const endpointId = await this.ownership.endpointOfDelivery(id);
    if (
      endpointId === null ||
      !(await endpointIsOwned(this.endpoints, actor.accountId, endpointId))
    ) {
      throw new NotFoundError(`delivery ${id} does not exist`);
    }
    return this.deliveries.redeliver(id, actor);
  }
}
