import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { testMessage } from '../delivery/attempts';
import { leadEvents } from '../leads/upload';
import { EVENT_EXAMPLES } from './event-examples.constants';
import {
  EVENT_SCHEMA_NAMES,
  eventJsonSchema,
  eventOpenApiSchemas,
  JSON_SCHEMA_DIALECT,
  pingJsonSchema,
  type EventInput,
} from './event-schemas.constants';
import { EVENT_TYPES } from './event-types.constants';

/** A standard validator of draft 2020-12, strict, with the formats (date-time, uuid) checked. */
function validator() {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const body = (type: string, data: unknown) => ({
  type,
  timestamp: '2026-11-27T10:00:00.000Z',
  data,
});

describe('event payload schemas (docs/webhooks.md#payload-schemas)', () => {
  const ajv = validator();

  it.each(EVENT_TYPES)(
    '%s: a draft 2020-12 JSON Schema that a strict validator compiles',
    (type) => {
      const schema = eventJsonSchema(type);
      expect(schema.$schema).toBe(JSON_SCHEMA_DIALECT);
      expect(schema.title).toBe(EVENT_SCHEMA_NAMES[type]);
      expect(schema).toMatchObject({
        type: 'object',
        required: ['type', 'timestamp', 'data'],
        additionalProperties: false,
        properties: { type: { const: type } },
      });
      expect(() => ajv.compile(schema)).not.toThrow();
    },
  );

  it.each(EVENT_TYPES)('%s: its example, as a test event sends it, validates', (type) => {
    const validate = ajv.compile(eventJsonSchema(type));
    const sent = JSON.parse(testMessage(7, type).body) as unknown;
    expect(validate(sent) ? [] : validate.errors).toEqual([]);
    expect(validate(body(type, EVENT_EXAMPLES[type]))).toBe(true);
  });

  it('a test ping validates against the ping schema', () => {
    const validate = ajv.compile(pingJsonSchema());
    expect(validate(JSON.parse(testMessage(7, undefined).body))).toBe(true);
    expect(validate(body('ping', { endpoint_id: 0 }))).toBe(false);
  });

  it('what a lead upload publishes validates, null fields included', () => {
    const events = leadEvents(
      { importId: 'da0d9e06-a528-4f56-97cb-2ce1284d80c6', campaignId: 3, source: 'api', tags: [] },
      [
        {
          row: 0,
          lead: {
            phone: '+14155552671',
            first_name: null,
            last_name: null,
            email: null,
            company: null,
            title: null,
          },
        },
      ],
      [{ id: 9, phone: '+14155552671', created_at: new Date('2026-11-27T10:00:00.000Z') }],
      new Set(['lead.created', 'leads.bulk_created']),
    );
    expect(events.map((e) => e.type)).toEqual(['lead.created', 'leads.bulk_created']);
    for (const event of events) {
      const validate = ajv.compile(eventJsonSchema(event.type));
      expect(validate(body(event.type, event.data)) ? [] : validate.errors).toEqual([]);
    }
  });

  it('rejects a missing field, an undocumented field, a wrong type and a wrong time', () => {
    const validate = ajv.compile(eventJsonSchema('lead.converted'));
    const { currency: _currency, ...missing } = EVENT_EXAMPLES['lead.converted'];
    expect(validate(body('lead.converted', missing))).toBe(false);
    expect(validate(body('lead.converted', { ...EVENT_EXAMPLES['lead.converted'], x: 1 }))).toBe(
      false,
    );
    expect(
      validate(body('lead.converted', { ...EVENT_EXAMPLES['lead.converted'], lead_id: '7' })),
    ).toBe(false);
    expect(
      validate(
        body('lead.converted', { ...EVENT_EXAMPLES['lead.converted'], converted_at: 'yesterday' }),
      ),
    ).toBe(false);
    expect(validate(body('lead.created', EVENT_EXAMPLES['lead.converted']))).toBe(false);
  });

  it('gives openapi.json each schema without $schema, and the ping', () => {
    const components = eventOpenApiSchemas();
    expect(Object.keys(components)).toEqual([...Object.values(EVENT_SCHEMA_NAMES), 'PingEvent']);
    for (const schema of Object.values(components)) expect(schema).not.toHaveProperty('$schema');
    // Copies: the served schemas stay as they are.
    expect(eventJsonSchema('lead.created').$schema).toBe(JSON_SCHEMA_DIALECT);
    expect(Object.isFrozen(eventJsonSchema('lead.created'))).toBe(true);
  });

  it('types the publisher: a payload outside its schema does not compile', () => {
    const valid: EventInput = { type: 'lead.converted', data: EVENT_EXAMPLES['lead.converted'] };
    // @ts-expect-error -- a lead.created event cannot carry a lead.converted payload.
    const wrongType: EventInput = { type: 'lead.created', data: EVENT_EXAMPLES['lead.converted'] };
    const wrongField: EventInput = {
      type: 'call.started',
      // @ts-expect-error -- call_id is a string.
      data: { ...EVENT_EXAMPLES['call.started'], call_id: 7 },
    };
    expect([valid, wrongType, wrongField]).toHaveLength(3);
  });
});
