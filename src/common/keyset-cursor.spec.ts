import fc from 'fast-check';
import { InvalidInputError } from './domain-error';
import { cursorFields, keysetCursor } from './keyset-cursor';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** The thrown error's class, field and message, for one cursor. */
function refusal(decode: () => unknown): unknown {
  try {
    decode();
  } catch (error) {
    return {
      invalid: error instanceof InvalidInputError,
      field: (error as InvalidInputError).field,
      message: (error as Error).message,
    };
  }
  return 'decoded';
}

describe('keyset cursors (docs/security.md#cursors)', () => {
  const log = keysetCursor({
    prefix: 'v1:',
    separator: ':',
    fields: [cursorFields.signedInt8(), cursorFields.id()],
    maxLength: 64,
    message: 'is not a cursor of this log: pass next_cursor unchanged',
  });
  const list = keysetCursor({
    prefix: '',
    separator: '.',
    fields: [cursorFields.int8(), cursorFields.uuid()],
    maxLength: 96,
    message: 'is not a cursor of this list',
  });
  const rows = keysetCursor({
    prefix: 'r',
    separator: '',
    fields: [cursorFields.natural(9)],
    maxLength: 96,
    message: 'is not a cursor of this list',
  });
  const search = keysetCursor({
    prefix: 'v1:',
    separator: ':',
    fields: [
      cursorFields.oneOf(['phone', 'email', 'name']),
      cursorFields.id(),
      cursorFields.text(),
    ],
    maxLength: 8192,
    message: 'is not a cursor of this search: pass next_cursor unchanged',
  });
  const UUID = '0b7e4c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b';

  it('writes the text each list wrote before, so cursors already handed out still decode', () => {
    expect(log.encode(['-1795500000123456', 42])).toBe(b64('v1:-1795500000123456:42'));
    expect(list.encode(['1795500000123456', UUID])).toBe(b64(`1795500000123456.${UUID}`));
    expect(rows.encode([0])).toBe(b64('r0'));
    expect(search.encode(['name', 7, 'ada: lovelace'])).toBe(b64('v1:name:7:ada: lovelace'));
    expect(log.decode(b64('v1:0:1'))).toEqual(['0', 1]);
    expect(rows.decode(b64('r999999999'))).toEqual([999_999_999]);
    expect(search.decode(b64('v1:email:9:a:b\u0001c'))).toEqual(['email', 9, 'a:b\u0001c']);
  });

  it('reads back every tuple it writes', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.string({ unit: 'grapheme', maxLength: 100 }).filter((key) => !key.includes('\0')),
        (micros, id, key) => {
          expect(log.decode(log.encode([String(micros), id]))).toEqual([String(micros), id]);
          expect(search.decode(search.encode(['name', id, key]))).toEqual(['name', id, key]);
          if (micros >= 0n) {
            expect(list.decode(list.encode([String(micros), UUID]))).toEqual([
              String(micros),
              UUID,
            ]);
          }
        },
      ),
    );
  });

  it.each([
    ['empty', ''],
    ['not base64url', '!!!'],
    ['padded', `${b64('v1:1:1')}=`],
    ['too long', 'A'.repeat(65)],
    ['another version', b64('v2:1:1')],
    ['a NUL after the id', b64('v1:1:1\0')],
    ['a time beyond bigint', b64('v1:9223372036854775808:1')],
    ['a time below bigint', b64('v1:-9223372036854775809:1')],
    ['minus zero', b64('v1:-0:1')],
    ['a leading zero', b64('v1:01:1')],
    ['an id of 0', b64('v1:1:0')],
    ['an id beyond 2^53', b64('v1:1:9007199254740992')],
    ['a missing field', b64('v1:1')],
    ['an extra field', b64('v1:1:1:1')],
  ])('refuses %s with the list’s message, naming cursor', (_name, cursor) => {
    expect(refusal(() => log.decode(cursor))).toEqual({
      invalid: true,
      field: 'cursor',
      message: 'cursor is not a cursor of this log: pass next_cursor unchanged',
    });
  });

  it.each([
    ['a signed time', list, b64(`-1.${UUID}`)],
    ['a UUID in capitals', list, b64(`1.${UUID.toUpperCase()}`)],
    ['a UUID of dashes', list, b64(`1.${'-'.repeat(36)}`)],
    ['a UUID of zeros only', list, b64(`1.${'0'.repeat(36)}`)],
    ['a row with a leading zero', rows, b64('r01')],
    ['a row of 10 digits', rows, b64('r9999999999')],
    ['a row without its prefix', rows, b64('1')],
  ])('refuses %s', (_name, codec, cursor) => {
    expect(() => codec.decode(cursor)).toThrow('cursor is not a cursor of this list');
  });

  it('refuses a word it does not know and a NUL in the text', () => {
    expect(() => search.decode(b64('v1:company:1:x'))).toThrow(
      'cursor is not a cursor of this search',
    );
    expect(() => search.decode(b64('v1:name:1:ada\0 lovelace'))).toThrow(
      'cursor is not a cursor of this search',
    );
    expect(search.invalid()).toBeInstanceOf(InvalidInputError);
    expect(search.invalid().field).toBe('cursor');
  });

  it('takes the prefix and separator as text, not as patterns', () => {
    const dotted = keysetCursor({
      prefix: 'a.b',
      separator: '.',
      fields: [cursorFields.id(), cursorFields.id()],
      maxLength: 64,
      message: 'is not a cursor of this list',
    });
    expect(dotted.decode(dotted.encode([1, 2]))).toEqual([1, 2]);
    expect(() => dotted.decode(b64('axb.1.2'))).toThrow('cursor is not a cursor of this list');
    expect(() => dotted.decode(b64('a.b1x2'))).toThrow('cursor is not a cursor of this list');
  });
});
