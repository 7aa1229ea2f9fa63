import { z } from 'zod';
import { EVENT_TYPES, type EventType } from './event-types.constants';

/**
 * The payload of every webhook, defined once (docs/webhooks.md#payload-schemas): each event
 * type's body `{"type", "timestamp", "data"}` as a zod schema. From these come the TypeScript
 * types the publisher takes ({@link EventInput}), the JSON Schemas (draft 2020-12) that the
 * dashboard's `GET /event-types` serves ({@link eventJsonSchema}) and the public `openapi.json`
 * lists under `webhooks` ({@link eventOpenApiSchemas}), and the client package's payload types
 * (generated from that document). Nothing here is hand-kept twice.
 */

/** An ISO 8601 UTC time with milliseconds, as `Date.toISOString()` writes it. */
const isoTime = () => z.iso.datetime();
/** A positive id, a JSON number within JavaScript's safe integers. */
const id = () => z.int().positive();
/** A phone number in E.164, as an upload stores it. */
const e164 = () => z.string().regex(/^\+[1-9][0-9]{1,14}$/);
/** A text field of a lead: trimmed, or null when not given. */
const leadText = () => z.string().nullable();

const leadCreated = z
  .object({
    id: id().describe("The lead's id"),
    campaign_id: id().describe('Its campaign'),
    phone: e164().describe('E.164'),
    first_name: leadText(),
    last_name: leadText(),
    email: leadText(),
    company: leadText(),
    title: leadText(),
    tags: z.array(z.string()).describe("The upload's tags"),
    source: z.string().describe("The upload's source"),
    import_id: z.uuid().describe("The upload's import_id"),
    created_at: isoTime().describe('When the lead was stored'),
  })
  .describe('The stored lead');

const leadsBulkCreated = z
  .object({
    import_id: z.uuid().describe("The upload's import_id"),
    campaign_id: id(),
    source: z.string(),
    tags: z.array(z.string()),
    lead_count: z.int().nonnegative().describe('How many leads the upload created'),
    lead_ids: z.array(id()).describe('Their ids, in request order'),
  })
  .describe('A summary of one upload');

const leadStatusChanged = z
  .object({
    lead_id: id(),
    campaign_id: id(),
    previous_status: z.string().nullable().describe('The status before, null for none'),
    status: z.string().describe('The status now'),
    changed_at: isoTime(),
  })
  .describe("A lead's status changed");

const leadConverted = z
  .object({
    lead_id: id(),
    campaign_id: id(),
    conversion: z.string().describe('What the conversion was, e.g. appointment_booked'),
    value: z.number().nonnegative().nullable().describe('Its value, null when none'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .nullable()
      .describe('ISO 4217 code of `value`'),
    converted_at: isoTime(),
  })
  .describe('A lead converted');

const callDirection = z.enum(['inbound', 'outbound']);

const callStarted = z
  .object({
    call_id: z.string().min(1),
    lead_id: id().nullable().describe('The lead called, null when unknown'),
    campaign_id: id(),
    phone: e164(),
    direction: callDirection,
    started_at: isoTime(),
  })
  .describe('A call started');

const callCompleted = z
  .object({
    call_id: z.string().min(1).describe('The same call_id as its call.started'),
    lead_id: id().nullable().describe('The lead called, null when unknown'),
    campaign_id: id(),
    phone: e164(),
    duration_seconds: z.int().nonnegative(),
    outcome: z.enum(['answered', 'no_answer', 'busy', 'voicemail', 'failed']),
    completed_at: isoTime(),
  })
  .describe('A call ended');

const formSubmitted = z
  .object({
    form_id: z.string().min(1),
    submission_id: z.string().min(1),
    lead_id: id().nullable().describe('The lead the submission is linked to, if any'),
    campaign_id: id(),
    fields: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .describe('The submitted fields by name'),
    submitted_at: isoTime(),
  })
  .describe('A form was submitted');

/** One sentence per event type: when it is sent. Shown by the dashboard and `openapi.json`. */
export const EVENT_DESCRIPTIONS: Readonly<Record<EventType, string>> = Object.freeze({
  'lead.created': 'A lead was created by an upload: one event per created lead.',
  'leads.bulk_created': 'An upload created at least one lead: one event per upload.',
  'lead.status_changed': "A lead's status changed.",
  'lead.converted': 'A lead converted (an appointment, a sale…).',
  'call.started': 'A call with a lead started.',
  'call.completed': 'A call with a lead ended.',
  'form.submitted': 'A form was submitted.',
});

/** The component name of each event type's payload schema in `openapi.json`. */
export const EVENT_SCHEMA_NAMES: Readonly<Record<EventType, string>> = Object.freeze({
  'lead.created': 'LeadCreatedEvent',
  'leads.bulk_created': 'LeadsBulkCreatedEvent',
  'lead.status_changed': 'LeadStatusChangedEvent',
  'lead.converted': 'LeadConvertedEvent',
  'call.started': 'CallStartedEvent',
  'call.completed': 'CallCompletedEvent',
  'form.submitted': 'FormSubmittedEvent',
});

/** The `type` of a test ping (docs/webhooks.md#test-events) and its payload's component name. */
export const PING_TYPE = 'ping';
export const PING_SCHEMA_NAME = 'PingEvent';

/** The body `{"type", "timestamp", "data"}` of events of `type`, titled and described. */
function envelope<T extends string, D extends z.ZodType>(
  type: T,
  data: D,
  title: string,
  description: string,
) {
  return z
    .object({
      type: z.literal(type),
      timestamp: isoTime().describe('When the event was recorded'),
      data,
    })
    .meta({ title, description });
}

const event = <T extends EventType, D extends z.ZodType>(type: T, data: D) =>
  envelope(type, data, EVENT_SCHEMA_NAMES[type], EVENT_DESCRIPTIONS[type]);

/** The whole body of each event type: `{"type", "timestamp", "data"}`. */
export const EVENT_SCHEMAS = Object.freeze({
  'lead.created': event('lead.created', leadCreated),
  'leads.bulk_created': event('leads.bulk_created', leadsBulkCreated),
  'lead.status_changed': event('lead.status_changed', leadStatusChanged),
  'lead.converted': event('lead.converted', leadConverted),
  'call.started': event('call.started', callStarted),
  'call.completed': event('call.completed', callCompleted),
  'form.submitted': event('form.submitted', formSubmitted),
} as const satisfies Record<EventType, z.ZodType>);

/** The body of a test ping: `data` names the endpoint. Never subscribed to. */
export const PING_SCHEMA = envelope(
  PING_TYPE,
  z.object({ endpoint_id: id().describe('The endpoint pinged') }),
  PING_SCHEMA_NAME,
  'A test ping sent from the dashboard or `endpoint ping`; no endpoint subscribes to it.',
);

/** The whole body of an event of type `T`. */
export type EventBody<T extends EventType> = z.output<(typeof EVENT_SCHEMAS)[T]>;

/** The `data` of an event of type `T`: what the publisher takes and receivers get. */
export type EventData<T extends EventType> = EventBody<T>['data'];

/** An event to record: its type and its `data`, typed by that type (a wrong field fails to compile). */
export type EventInput = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/** The draft of every JSON Schema served here. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** A JSON Schema document, as plain JSON. */
export type JsonSchema = { [key: string]: unknown };

const jsonSchemas = new Map<string, JsonSchema>();

function toJsonSchema(key: string, schema: z.ZodType): JsonSchema {
  let cached = jsonSchemas.get(key);
  if (!cached) {
    cached = deepFreeze(z.toJSONSchema(schema, { target: 'draft-2020-12' }) as JsonSchema);
    jsonSchemas.set(key, cached);
  }
  return cached;
}

/**
 * The JSON Schema (draft 2020-12, with `$schema`) of the whole body of an event of `type`,
 * generated from {@link EVENT_SCHEMAS}. Closed: no property beyond the documented ones.
 * Deeply frozen and computed once per type.
 */
export function eventJsonSchema(type: EventType): JsonSchema {
  return toJsonSchema(type, EVENT_SCHEMAS[type]);
}

/** The JSON Schema of a test ping's body ({@link PING_SCHEMA}). */
export function pingJsonSchema(): JsonSchema {
  return toJsonSchema(PING_TYPE, PING_SCHEMA);
}

/**
 * The payload schemas as OpenAPI 3.1 components, by component name: each event type's and the
 * ping's JSON Schema without `$schema` (the document's dialect is 2020-12's). Fresh copies.
 */
export function eventOpenApiSchemas(): Record<string, JsonSchema> {
  const entries: Array<[string, JsonSchema]> = EVENT_TYPES.map((type) => [
    EVENT_SCHEMA_NAMES[type],
    eventJsonSchema(type),
  ]);
  entries.push([PING_SCHEMA_NAME, pingJsonSchema()]);
  return Object.fromEntries(
    entries.map(([name, schema]) => {
      const { $schema: _dialect, ...rest } = structuredClone(schema);
      return [name, rest];
    }),
  );
}

/** Freezes `value` and everything in it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
