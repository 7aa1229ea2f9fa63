import { Body, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { SerializesTo } from '../../dashboard-kernel';
import { DeliveryRecoveries, type RecoveryPreview } from '../recovery';
import {
  DashboardAccess,
  DashboardController,
  CurrentActor,
  type DashboardActor,
  ApiCsrfHeader,
  ApiIdParam,
  ApiQueries,
  DashboardErrorResponses,
  checkedInput,
  DashboardIdPipe,
} from '../../dashboard-kernel';
import {
  RecoveryDto,
  RecoveryPreviewDto,
  RecoveryPreviewQueryDto,
  StartRecoveryRequestDto,
} from './recovery.dto';

/** The times of a recovery, `Date`s until serialised. */
type RecoveryTimes = 'since' | 'created_at' | 'finished_at';

/**
 * Bulk recovery of an endpoint's failed deliveries (docs/dashboard.md#bulk-recovery), and the
 * replay of what it missed while disabled (scope `missed`,
 * docs/dashboard.md#replaying-missed-deliveries): preview, start and progress, under
 * `/dashboard/api/endpoints/{endpoint_id}/`. Each route declares its `endpoint_id`, so the
 * guard answers another account's endpoint with `404`, like one that does not exist, first.
 */
@ApiTags('recovery')
@DashboardController('endpoints')
export class EndpointRecoveriesController {
  constructor(private readonly recoveries: DeliveryRecoveries) {}

  /**
   * `{since, failed_count, retrying_count, skipped_count}`: what a recovery since `since` would
   * send again now (the failed ones, those waiting on a retry, and with the scope `missed` the
   * skipped and dropped ones too).
   */
  @Get(':endpoint_id/recovery/preview')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary:
      'Count the endpoint’s failed, waiting on a retry, and skipped or dropped, deliveries since a time',
    operationId: 'previewRecovery',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiQueries([
    {
      name: 'since',
      required: true,
      schema: { type: 'string', format: 'date-time' },
      description: 'ISO 8601 date-time with a zone, not in the future',
    },
  ])
  @ApiOkResponse({ type: RecoveryPreviewDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  preview(
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Query() query: Record<string, unknown>,
  ): Promise<RecoveryPreview> {
    const { since } = checkedInput(RecoveryPreviewQueryDto, query);
    return this.recoveries.preview(id, since);
  }

  /**
   * Starts redelivering the endpoint's failed deliveries since `since` (or, with the scope
   * `missed`, replaying its failed, skipped and dropped ones): `202` with the new recovery
   * (recorded as `delivery.bulk_redeliver`, or `delivery.replay_missed`), or `200` with the one
   * already running, whatever its scope.
   */
  @Post(':endpoint_id/recoveries')
  @HttpCode(202)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary:
      'Redeliver every failed (or, with the scope `missed`, every missed) delivery since a time, in the background',
    operationId: 'startRecovery',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiCsrfHeader()
  @ApiBody({ type: StartRecoveryRequestDto })
  @ApiAcceptedResponse({ type: RecoveryDto, description: 'A new recovery, started' })
  @ApiOkResponse({
    type: RecoveryDto,
    description: 'The endpoint’s recovery already running (none is started)',
  })
  @DashboardErrorResponses(400, 401, 403, 404, 409, 415, 422, 500, 503)
  async start(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Body() body: Record<string, unknown>,
    // The status depends on the outcome, which `@HttpCode` cannot express: this route answers
    // itself (errors thrown before still go through the error envelope filter).
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { since, scope } = checkedInput(StartRecoveryRequestDto, body);
    const { recovery, started } = await this.recoveries.start(id, since, scope, actor);
    await reply.status(started ? 202 : 200).send(recovery);
  }

  /** The endpoint's last 10 recoveries, newest first. */
  @Get(':endpoint_id/recoveries')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary: 'List the endpoint’s recent recoveries with their progress',
    operationId: 'listRecoveries',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiOkResponse({ type: [RecoveryDto], description: 'The last 10, newest first' })
  @DashboardErrorResponses(400, 401, 404, 500, 503)
  list(
    @Param('endpoint_id', DashboardIdPipe) id: number,
  ): Promise<SerializesTo<RecoveryDto, RecoveryTimes>[]> {
    return this.recoveries.list(id);
  }
}

/**
 * `POST /dashboard/api/recoveries/{recovery_id}/cancel` (docs/dashboard.md#bulk-recovery):
 * stops a recovery before its next batch. The guard checks the recovery against the session's
 * account (through its endpoint); another account's is `404` like one that does not exist.
 */
@ApiTags('recovery')
@DashboardController('recoveries')
export class RecoveriesController {
  constructor(private readonly recoveries: DeliveryRecoveries) {}

  /**
   * The recovery, `cancelled` (or as it ended: cancelling again, or a finished recovery,
   * changes nothing). Recorded as `delivery.bulk_redeliver_cancel` when it cancelled one.
   */
  @Post(':recovery_id/cancel')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'recovery', param: 'recovery_id' })
  @ApiOperation({ summary: 'Cancel a running recovery', operationId: 'cancelRecovery' })
  @ApiIdParam('recovery_id', 'Recovery id')
  @ApiCsrfHeader()
  @ApiOkResponse({ type: RecoveryDto, description: 'The recovery as it stands now' })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 500, 503)
  async cancel(
    @CurrentActor() actor: DashboardActor,
    @Param('recovery_id', DashboardIdPipe) id: number,
  ): Promise<SerializesTo<RecoveryDto, RecoveryTimes>> {
    const { recovery } = await this.recoveries.cancel(id, actor);
    return recovery;
  }
}
