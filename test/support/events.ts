import type { EventInput } from '../../src/webhooks/event-schemas.constants';
import type { EventType } from '../../src/webhooks/event-types.constants';

/**
 * An event whose `data` the test makes up outside its type's payload schema
 * (docs/webhooks.md#payload-schemas): for tests of the outbox's mechanics (what is recorded,
 * queued, retried, counted), which do not care what the payload says. Tests of payloads
 * publish schema-typed `EventInput`s instead.
 */
export function madeUpEvent(type: EventType, data: Record<string, unknown>): EventInput {
  return { type, data } as unknown as EventInput;
}
