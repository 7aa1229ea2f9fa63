import fc from 'fast-check';
import { InvalidInputError } from '../../common/domain-error';
import { EVENT_TYPES } from '../../webhooks/event-types.constants';
import {
  decodeLogCursor,
  encodeLogCursor,
  parseDeliveryLogQuery,
  parseInstant,
  type DeliveryLogQuery,
} from './delivery-log';

/** The error `work` throws, which must be an InvalidInputError about `field`. */
function invalidInput(work: () => unknown, field: string): InvalidInputError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe(field);
    expect((error as InvalidInputError).message.startsWith(`${field} `)).toBe(true);
    return error as InvalidInputError;
  }
  throw new Error('expected an InvalidInputError');
}

describe('delivery log cursor', () => {
  it('is opaque base64url and reads back the exact position, microseconds included', () => {
    const position = { attemptedAtUs: '1795500000123456', id: 42 };
    const cursor = encodeLogCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('1795500000123456');
    expect(decodeLogCursor(cursor)).toEqual(position);
  });

  it('round-trips any position', () => {
    fc.assert(
      fc.property(
        // PostgreSQL's timestamptz range from 4713 BC, in µs since 1970, up to a bigint's limit.
        fc.bigInt({ min: -210_866_803_200_000_000n, max: 2n ** 63n - 1n }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        (us, id) => {
          const position = { attemptedAtUs: String(us), id };
          expect(decodeLogCursor(encodeLogCursor(position))).toEqual(position);
        },
      ),
    );
  });

  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

  it.each([
    ['empty', ''],
    ['not base64url', 'v1:1:2!'],
    ['padding', `${b64('v1:1795500000123456:42')}=`],
    ['standard base64 characters', b64('v1:1795500000123456:4?').replace(/_/g, '/') + '+'],
    ['another version', b64('v2:1795500000123456:42')],
    ['no id', b64('v1:1795500000123456')],
    ['a zero id', b64('v1:1795500000123456:0')],
    ['a negative id', b64('v1:1795500000123456:-4')],
    ['a leading zero', b64('v1:1795500000123456:042')],
    ['an id beyond 2^53', b64('v1:1795500000123456:9007199254740993')],
    ['a time beyond a bigint', b64('v1:9223372036854775808:1')],
    ['a time with a leading zero', b64('v1:01:1')],
    ['minus zero', b64('v1:-0:1')],
    ['a fraction', b64('v1:1795500000123456.5:1')],
    ['trailing text', b64('v1:1795500000123456:42 ')],
    ['JSON', b64('{"at":1,"id":2}')],
    ['random bytes', 'q83vEjRWeJA'],
    ['far too long', 'A'.repeat(200)],
  ])('is rejected when it is %s', (_name, cursor) => {
    invalidInput(() => decodeLogCursor(cursor), 'cursor');
  });

  it('rejects a non-canonical encoding of a valid cursor (trailing bits set)', () => {
    const cursor = encodeLogCursor({ attemptedAtUs: '1', id: 7 });
    const last = cursor.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const tweaked = cursor.slice(0, -1) + alphabet[alphabet.indexOf(last) + 1];
    if (Buffer.from(tweaked, 'base64url').toString() === 'v1:1:7') {
      invalidInput(() => decodeLogCursor(tweaked), 'cursor');
    }
  });
});

describe('delivery log parameters', () => {
  it('defaults to 50 of everything', () => {
    expect(parseDeliveryLogQuery({})).toEqual({ limit: 50 });
    expect(
      parseDeliveryLogQuery({
        outcome: null,
        event_type: undefined,
        from: null,
        to: null,
        limit: null,
        cursor: null,
      }),
    ).toEqual({ limit: 50 });
  });

  it('maps outcome, event type (ping included), range, limit and cursor', () => {
    const cursor = encodeLogCursor({ attemptedAtUs: '5', id: 9 });
    expect(
      parseDeliveryLogQuery({
        outcome: 'failed',
        event_type: 'lead.created',
        from: '2026-11-22T00:00:00Z',
        to: '2026-11-23T01:00:00.250+01:00',
        limit: '100',
        cursor,
      }),
    ).toEqual({
      success: false,
      eventType: 'lead.created',
      from: new Date('2026-11-22T00:00:00.000Z'),
      to: new Date('2026-11-23T00:00:00.250Z'),
      limit: 100,
      after: { attemptedAtUs: '5', id: 9 },
    });
    expect(parseDeliveryLogQuery({ outcome: 'succeeded', event_type: 'ping', limit: 1 })).toEqual({
      success: true,
      eventType: 'ping',
      limit: 1,
    });
    for (const type of EVENT_TYPES) {
      expect(parseDeliveryLogQuery({ event_type: type }).eventType).toBe(type);
    }
    const at = new Date('2026-01-01T00:00:00Z');
    expect(parseDeliveryLogQuery({ from: at }).from).toBe(at);
  });

  it.each<[DeliveryLogQuery, string]>([
    [{ outcome: 'success' }, 'outcome'],
    [{ outcome: '' }, 'outcome'],
    [{ outcome: 'FAILED' }, 'outcome'],
    [{ event_type: 'lead.nope' }, 'event_type'],
    [{ event_type: 'Ping' }, 'event_type'],
    [{ event_type: '' }, 'event_type'],
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 2.5 }, 'limit'],
    [{ limit: Number.NaN }, 'limit'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: '5x' }, 'limit'],
    [{ limit: ' 5' }, 'limit'],
    [{ limit: '-1' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ from: 'yesterday' }, 'from'],
    [{ from: '2026-11-22' }, 'from'],
    [{ from: '2026-11-22T10:00:00' }, 'from'],
    [{ from: '2026-02-30T10:00:00Z' }, 'from'],
    [{ from: '2026-11-22T24:00:00Z' }, 'from'],
    [{ from: '2026-11-22T10:60:00Z' }, 'from'],
    [{ from: new Date(Number.NaN) }, 'from'],
    [{ to: '1795500000' }, 'to'],
    [{ from: '2026-11-22T10:00:00Z', to: '2026-11-22T10:00:00Z' }, 'to'],
    [{ from: '2026-11-22T10:00:00Z', to: '2026-11-22T09:00:00Z' }, 'to'],
    [{ cursor: 'nope' }, 'cursor'],
  ])('rejects %j naming %s', (query, field) => {
    invalidInput(() => parseDeliveryLogQuery(query), field);
  });
});

describe('parseInstant', () => {
  it.each([
    ['2026-11-22T23:10:54.279Z', '2026-11-22T23:10:54.279Z'],
    ['2026-11-22t23:10:54z', '2026-11-22T23:10:54.000Z'],
    ['2026-11-22T23:10Z', '2026-11-22T23:10:00.000Z'],
    ['2026-11-22T23:10:54.279123Z', '2026-11-22T23:10:54.279Z'],
    ['2026-11-23T01:10:54+02:00', '2026-11-22T23:10:54.000Z'],
    ['2026-11-22T18:10:54-0500', '2026-11-22T23:10:54.000Z'],
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
  ])('reads %s', (text, iso) => {
    expect(parseInstant('from', text).toISOString()).toBe(iso);
  });

  it('rejects a day the calendar does not have', () => {
    invalidInput(() => parseInstant('to', '2027-02-29T00:00:00Z'), 'to');
  });
});
