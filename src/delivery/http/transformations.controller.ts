import { Body, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InvalidInputError } from '../../common/domain-error';
import {
  ApiCsrfHeader,
  ApiIdParam,
  ApiQueries,
  checkedInput,
  CurrentActor,
  DashboardAccess,
  DashboardController,
  DashboardErrorResponses,
  DashboardIdPipe,
  type DashboardActor,
} from '../../dashboard-kernel';
import {
  EndpointTransformations,
  type TransformationState,
  type TransformationVersionDetail,
} from '../../webhooks';
import { DeliveryService, type TrialOutcome } from '../attempts';
import {
  RestoreTransformationRequestDto,
  RunTransformationRequestDto,
  SaveTransformationRequestDto,
  TransformationStateDto,
  TransformationTrialDto,
  TransformationVersionDto,
} from './transformations.dto';

/**
 * An endpoint's transformation in the dashboard (docs/dashboard.md#transformations): the
 * version in force and the history (anyone), one version's code (anyone), saving, restoring
 * and clearing (admins, audited), and trial runs on an example or a past delivery that send
 * nothing (admins: they run code). Another account's endpoint is `404`.
 */
@ApiTags('endpoints')
@DashboardController('endpoints')
export class TransformationsController {
  constructor(
    private readonly transformations: EndpointTransformations,
    private readonly deliveries: DeliveryService,
  ) {}

  @Get(':endpoint_id/transformation')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary: 'The endpoint’s transformation in force and its versions',
    operationId: 'getTransformation',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiOkResponse({ type: TransformationStateDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  get(@Param('endpoint_id', DashboardIdPipe) id: number): Promise<TransformationState> {
    return this.transformations.state(id);
  }

  @Get(':endpoint_id/transformation/code')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary: 'One saved version of the endpoint’s transformation, with its code',
    operationId: 'getTransformationVersion',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiQueries([
    {
      name: 'version',
      required: false,
      schema: { type: 'integer', minimum: 1 },
      description: 'The version; absent: the version in force',
    },
  ])
  @ApiOkResponse({ type: TransformationVersionDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  version(
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Query() query: Record<string, unknown>,
  ): Promise<TransformationVersionDetail> {
    const text = query.version;
    if (text === undefined) return this.transformations.version(id, null);
    if (typeof text !== 'string' || !/^[1-9][0-9]{0,9}$/.test(text)) {
      throw InvalidInputError.field('version', 'must be a whole number from 1');
    }
    return this.transformations.version(id, Number(text));
  }

  @Put(':endpoint_id/transformation')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary: 'Save the endpoint’s transformation as its next version (in force at once)',
    operationId: 'saveTransformation',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiCsrfHeader()
  @ApiBody({ type: SaveTransformationRequestDto })
  @ApiOkResponse({ type: TransformationStateDto })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  save(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Body() body: Record<string, unknown>,
  ): Promise<TransformationState> {
    const input = checkedInput(SaveTransformationRequestDto, body);
    return this.transformations.save(id, input.code, actor);
  }

  @Post(':endpoint_id/transformation/restore')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary: 'Restore a saved version: its code becomes the next version',
    operationId: 'restoreTransformation',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiCsrfHeader()
  @ApiBody({ type: RestoreTransformationRequestDto })
  @ApiOkResponse({ type: TransformationStateDto })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  restore(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Body() body: Record<string, unknown>,
  ): Promise<TransformationState> {
    const input = checkedInput(RestoreTransformationRequestDto, body);
    return this.transformations.restore(id, input.version, actor);
  }

  @Delete(':endpoint_id/transformation')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary: 'Take the transformation out of force (its versions are kept)',
    operationId: 'clearTransformation',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiCsrfHeader()
  @ApiOkResponse({ type: TransformationStateDto })
  @DashboardErrorResponses(400, 401, 403, 404, 500, 503)
  clear(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
  ): Promise<TransformationState> {
    return this.transformations.clear(id, actor);
  }

  @Post(':endpoint_id/transformation/run')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({
    summary:
      'Run a transformation on an example or a past delivery: the request it would send, without sending',
    operationId: 'runTransformation',
  })
  @ApiIdParam('endpoint_id', 'Endpoint id')
  @ApiCsrfHeader()
  @ApiBody({ type: RunTransformationRequestDto })
  @ApiOkResponse({ type: TransformationTrialDto })
  @DashboardErrorResponses(400, 401, 403, 404, 409, 415, 422, 500, 503)
  run(
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Body() body: Record<string, unknown>,
  ): Promise<TrialOutcome> {
    const input = checkedInput(RunTransformationRequestDto, body);
    return this.deliveries.runTransformation(id, input.code, {
      eventType: input.event_type,
      deliveryId: input.delivery_id,
    });
  }
}
