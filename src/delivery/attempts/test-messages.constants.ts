import { randomUUID } from 'node:crypto';
import { InvalidInputError } from '../../common/domain-error';
import { EVENT_EXAMPLES, EVENT_TYPES, isEventType } from '../../webhooks';

/** The `type` of a test ping, and the value that asks for one. */
export const PING = 'ping';

/** A test message to send once to an endpoint, outside any delivery. */
export interface TestMessage {
  /** Its `webhook-id`: `ping_<uuid>` for a ping, `test_<uuid>` for an example event. */
  id: string;
  /** The body's `type`, as the delivery log records it: the event type, or `ping`. */
  eventType: string;
  /** The exact JSON text to sign and send: `{"type", "timestamp", "data"}`. */
  body: string;
}

/**
 * Builds a test message (docs/webhooks.md#test-events): a ping
 * `{"type": "ping", "timestamp", "data": {"endpoint_id"}}` when `eventType` is absent or
 * `ping`, else `{"type": eventType, "timestamp", "data": <its example>}` from
 * {@link EVENT_EXAMPLES}. Pure but for the random id.
 * @throws InvalidInputError (field `event_type`) for anything else.
 */
export function testMessage(
  endpointId: number,
  eventType: string | undefined,
  now: Date = new Date(),
): TestMessage {
  const timestamp = now.toISOString();
  if (eventType === undefined || eventType === PING) {
    return {
      id: `ping_${randomUUID()}`,
      eventType: PING,
      body: JSON.stringify({ type: PING, timestamp, data: { endpoint_id: endpointId } }),
    };
  }
  if (!isEventType(eventType)) {
    throw InvalidInputError.field(
      'event_type',
      `must be ${PING} or one of ${EVENT_TYPES.join(', ')}`,
    );
  }
  return {
    id: `test_${randomUUID()}`,
    eventType,
    body: JSON.stringify({ type: eventType, timestamp, data: EVENT_EXAMPLES[eventType] }),
  };
}
