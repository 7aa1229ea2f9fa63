/** The subscribable event types, exactly and in the order of spec section 6. */
export const EVENT_TYPES = [
  'lead.created',
  'leads.bulk_created',
  'lead.status_changed',
  'lead.converted',
  'call.started',
  'call.completed',
  'form.submitted',
] as const;

/** One of {@link EVENT_TYPES}. */
export type EventType = (typeof EVENT_TYPES)[number];

/** Whether `value` is a subscribable event type. */
export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
