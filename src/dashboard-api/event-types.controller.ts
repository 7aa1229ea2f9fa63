import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { eventTypeExamples, type ExampleData } from '../webhooks/event-examples.constants';
import type { EventType } from '../webhooks/event-types.constants';
import { DashboardAccess, DashboardController } from './dashboard-access';
import { DashboardErrorResponses } from './dashboard-error-responses';
import { EventTypeDto } from './dto/event-type.dto';

/** `GET /dashboard/api/event-types`: the seven event types with an example payload each. */
@ApiTags('event-types')
@DashboardController('event-types')
export class EventTypesController {
  /** In the documented order; each `example` is what a test event of that type sends as `data`. */
  @Get()
  @DashboardAccess('any')
  @ApiOperation({
    summary: 'List the event types with an example payload each',
    operationId: 'listEventTypes',
  })
  @ApiOkResponse({ type: [EventTypeDto] })
  @DashboardErrorResponses(401, 500, 503)
  list(): Array<{ type: EventType; example: ExampleData }> {
    return eventTypeExamples();
  }
}
