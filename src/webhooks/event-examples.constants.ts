import {
  deepFreeze,
  EVENT_DESCRIPTIONS,
  eventJsonSchema,
  type EventData,
  type JsonSchema,
} from './event-schemas.constants';
import { EVENT_TYPES, type EventType } from './event-types.constants';

/** The example `data` of each event type, typed by its schema (docs/webhooks.md#payload-schemas). */
export type EventExamples = { readonly [T in EventType]: EventData<T> };

/** The `data` of an event, as an example. */
export type ExampleData = EventData<EventType>;

const CAMPAIGN_ID = 1;
const LEAD_ID = 19801;
const IMPORT_ID = 'da0d9e06-a528-4f56-97cb-2ce1284d80c6';
const PHONE = '+12125550143';
const CALL_ID = 'CA9f2c1e7b04d3';

/**
 * One realistic `data` object per event type (docs/webhooks.md#payloads), sent by the dashboard's
 * test events (docs/webhooks.md#test-events) and shown next to each type. `lead.created` and
 * `leads.bulk_created` have exactly the fields a lead upload sends (`src/leads/upload/lead-events.ts`,
 * checked by `src/delivery/attempts/test-messages.constants.spec.ts`). Each is typed by its event
 * type's schema (`event-schemas.constants.ts`), so an example that leaves its schema fails to
 * compile; `event-schemas.constants.spec.ts` also validates each against the JSON Schema. Ids
 * are made up: they name no stored row. Deeply frozen.
 */
export const EVENT_EXAMPLES: EventExamples = deepFreeze({
  'lead.created': {
    id: LEAD_ID,
    campaign_id: CAMPAIGN_ID,
    phone: PHONE,
    first_name: 'Alva',
    last_name: 'Treutel',
    email: 'alva.treutel@example.com',
    company: 'Howe, Konopelski and Wyman',
    title: 'Operations Manager',
    tags: ['open-house'],
    source: 'crm-sync',
    import_id: IMPORT_ID,
    created_at: '2026-11-22T23:10:54.279Z',
  },
  'leads.bulk_created': {
    import_id: IMPORT_ID,
    campaign_id: CAMPAIGN_ID,
    source: 'crm-sync',
    tags: ['open-house'],
    lead_count: 3,
    lead_ids: [LEAD_ID, LEAD_ID + 1, LEAD_ID + 2],
  },
  'lead.status_changed': {
    lead_id: LEAD_ID,
    campaign_id: CAMPAIGN_ID,
    previous_status: 'new',
    status: 'contacted',
    changed_at: '2026-11-23T09:41:07.512Z',
  },
  'lead.converted': {
    lead_id: LEAD_ID,
    campaign_id: CAMPAIGN_ID,
    conversion: 'appointment_booked',
    value: 250,
    currency: 'USD',
    converted_at: '2026-11-24T15:02:33.118Z',
  },
  'call.started': {
    call_id: CALL_ID,
    lead_id: LEAD_ID,
    campaign_id: CAMPAIGN_ID,
    phone: PHONE,
    direction: 'outbound',
    started_at: '2026-11-23T09:38:12.004Z',
  },
  'call.completed': {
    call_id: CALL_ID,
    lead_id: LEAD_ID,
    campaign_id: CAMPAIGN_ID,
    phone: PHONE,
    duration_seconds: 175,
    outcome: 'answered',
    completed_at: '2026-11-23T09:41:07.004Z',
  },
  'form.submitted': {
    form_id: 'spring-open-house-rsvp',
    submission_id: 'f3b9a0c2-5d7e-4f1a-9c8b-2e6d4a1f0b37',
    lead_id: LEAD_ID,
    campaign_id: CAMPAIGN_ID,
    fields: {
      name: 'Alva Treutel',
      email: 'alva.treutel@example.com',
      phone: PHONE,
      guests: 2,
    },
    submitted_at: '2026-11-22T18:25:40.911Z',
  },
});

/** One event type as the dashboard lists it. */
export interface EventTypeDescription {
  type: EventType;
  /** When events of this type are sent. */
  description: string;
  /** The example `data` a test event of this type sends. */
  example: ExampleData;
  /** The JSON Schema (draft 2020-12) of the whole body of this type's events. */
  schema: JsonSchema;
}

/**
 * The seven event types in their documented order, each with its description, example `data`
 * and the JSON Schema of its body: what the dashboard's `GET /event-types` lists
 * (docs/dashboard.md#routes).
 */
export function eventTypeExamples(): EventTypeDescription[] {
  return EVENT_TYPES.map((type) => ({
    type,
    description: EVENT_DESCRIPTIONS[type],
    example: EVENT_EXAMPLES[type],
    schema: eventJsonSchema(type),
  }));
}
