import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { eventTypeExamples, type EventTypeDescription } from '..';
import {
  DashboardAccess,
  DashboardController,
  DashboardErrorResponses,
  PortalAccess,
} from '../../dashboard-kernel';
import { EventTypeDto } from './event-type.dto';

/**
 * `GET /dashboard/api/event-types`: the seven event types, each with its description, an
 * example payload and the JSON Schema of its body (docs/webhooks.md#payload-schemas).
 */
@ApiTags('event-types')
@DashboardController('event-types')
export class EventTypesController {
  /**
   * In the documented order; each `example` is what a test event of that type sends as `data`,
   * each `schema` the draft 2020-12 JSON Schema of the whole body.
   */
  @Get()
  @DashboardAccess('any')
  @PortalAccess('endpoints', 'deliveries')
  @ApiOperation({
    summary: 'List the event types with a description, an example payload and a JSON Schema each',
    operationId: 'listEventTypes',
  })
  @ApiOkResponse({ type: [EventTypeDto] })
  @DashboardErrorResponses(401, 500, 503)
  list(): EventTypeDescription[] {
    return eventTypeExamples();
  }
}
