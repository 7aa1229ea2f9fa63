import { InvalidInputError } from '../../common/domain-error';
import { leadEvents } from '../../leads/upload';
import { EVENT_EXAMPLES, eventTypeExamples } from '../../webhooks/event-examples.constants';
import { EVENT_TYPES } from '../../webhooks/event-types.constants';
import { testMessage } from './test-messages.constants';

/** The JSON type of a value, as a receiver sees it. */
const jsonType = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/** A plain JSON object all the way down: what survives JSON.stringify and JSON.parse unchanged. */
function expectPlainJson(value: unknown): void {
  if (value === null || ['string', 'boolean'].includes(typeof value)) return;
  if (typeof value === 'number') {
    expect(Number.isFinite(value)).toBe(true);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach(expectPlainJson);
    return;
  }
  expect(typeof value).toBe('object');
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  Object.values(value as object).forEach(expectPlainJson);
}

/** What a lead upload really sends (src/leads/upload/lead-events.ts), for one lead. */
function uploadEvents() {
  return leadEvents(
    {
      importId: 'da0d9e06-a528-4f56-97cb-2ce1284d80c6',
      campaignId: 1,
      source: 'api',
      tags: ['a'],
    },
    [
      {
        row: 0,
        lead: {
          phone: '+14155552671',
          first_name: 'Ada',
          last_name: null,
          email: 'ada@example.com',
          company: null,
          title: 'CTO',
        },
      },
    ],
    [{ id: 7, phone: '+14155552671', created_at: new Date('2026-11-22T23:10:54.279Z') }],
    new Set(['lead.created', 'leads.bulk_created']),
  );
}

describe('event examples', () => {
  it('has exactly one example for each of the seven types', () => {
    expect(Object.keys(EVENT_EXAMPLES).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(EVENT_TYPES)(
    '%s: a plain, non-empty JSON object that survives a JSON round trip',
    (type) => {
      const example = EVENT_EXAMPLES[type];
      expectPlainJson(example);
      expect(Object.keys(example).length).toBeGreaterThan(0);
      expect(JSON.parse(JSON.stringify(example))).toEqual(example);
    },
  );

  it.each(['lead.created', 'leads.bulk_created'] as const)(
    '%s: exactly the fields, with the JSON types, that a lead upload sends',
    (type) => {
      const sent = uploadEvents().find((event) => event.type === type)!.data as Record<
        string,
        unknown
      >;
      const example: Record<string, unknown> = EVENT_EXAMPLES[type];
      expect(Object.keys(example)).toEqual(Object.keys(sent));
      for (const [key, value] of Object.entries(sent)) {
        // A nullable field (null in the fixture) may hold its value's type in the example.
        if (value !== null) expect([key, jsonType(example[key])]).toEqual([key, jsonType(value)]);
      }
    },
  );

  it('are listed in the documented order of the types', () => {
    expect(eventTypeExamples().map((entry) => entry.type)).toEqual([...EVENT_TYPES]);
    for (const { type, example } of eventTypeExamples()) expect(example).toBe(EVENT_EXAMPLES[type]);
  });

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(EVENT_EXAMPLES['lead.created'])).toBe(true);
    expect(Object.isFrozen(EVENT_EXAMPLES['leads.bulk_created'].lead_ids)).toBe(true);
  });
});

describe('testMessage', () => {
  const now = new Date('2026-11-23T08:00:00.123Z');

  it('builds a ping when no type, or ping, is asked for', () => {
    for (const type of [undefined, 'ping']) {
      const message = testMessage(7, type, now);
      expect(message.id).toMatch(/^ping_[0-9a-f-]{36}$/);
      expect(message.eventType).toBe('ping');
      expect(message.body).toBe(
        '{"type":"ping","timestamp":"2026-11-23T08:00:00.123Z","data":{"endpoint_id":7}}',
      );
    }
  });

  it.each(EVENT_TYPES)('builds a %s test event from its example', (type) => {
    const message = testMessage(7, type, now);
    expect(message.id).toMatch(/^test_[0-9a-f-]{36}$/);
    expect(message.id.length).toBeLessThanOrEqual(64); // message_id is varchar(64)
    expect(message.eventType).toBe(type);
    expect(JSON.parse(message.body)).toEqual({
      type,
      timestamp: '2026-11-23T08:00:00.123Z',
      data: EVENT_EXAMPLES[type],
    });
    expect(Object.keys(JSON.parse(message.body))).toEqual(['type', 'timestamp', 'data']);
  });

  it('gives every message a new webhook-id', () => {
    expect(testMessage(7, 'call.started').id).not.toBe(testMessage(7, 'call.started').id);
  });

  it.each(['lead.nope', 'Lead.Created', ''])('rejects the type %j', (type) => {
    expect(() => testMessage(7, type)).toThrow(InvalidInputError);
    try {
      testMessage(7, type);
    } catch (error) {
      expect((error as InvalidInputError).field).toBe('event_type');
    }
  });
});
