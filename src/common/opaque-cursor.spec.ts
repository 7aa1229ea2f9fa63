import fc from 'fast-check';
import { decodeCursorText, encodeCursorText, int8OrNull } from './opaque-cursor';

describe('opaque cursors (docs/security.md#cursors)', () => {
  it('reads back any text without NUL, control characters included', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }).filter((text) => !text.includes('\0')),
        (text) => {
          const cursor = encodeCursorText(text);
          expect(cursor).toMatch(/^[A-Za-z0-9_-]*$/);
          if (text !== '') expect(decodeCursorText(cursor, 4096)).toBe(text);
        },
      ),
    );
    expect(decodeCursorText(encodeCursorText('v1:\t\u0001\u007f\u0085'), 64)).toBe(
      'v1:\t\u0001\u007f\u0085',
    );
  });

  it('refuses a cursor whose text holds a NUL, which PostgreSQL cannot store in text', () => {
    expect(decodeCursorText(encodeCursorText('v1:name:1:\0'), 64)).toBeNull();
    expect(decodeCursorText(encodeCursorText('\0'), 64)).toBeNull();
  });

  it('refuses a cursor with one character appended that decodes to a NUL byte', () => {
    // Texts of 3n + 1 and 3n + 2 bytes: their last base64url group has room for one more byte,
    // and an appended "A" adds a zero byte while the encoding stays canonical.
    for (const text of ['v1:name:1:ada', 'v1:name:1:ada ']) {
      const cursor = encodeCursorText(text);
      expect(Buffer.from(`${cursor}A`, 'base64url').toString('utf8')).toBe(`${text}\0`);
      expect(decodeCursorText(`${cursor}A`, 64)).toBeNull();
    }
  });

  it('reads a cursor with one character appended as another text, or refuses it', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const text of ['v1:name:1:ada', 'v1:name:1:ada ', 'v1:name:1:ada l']) {
      for (const extra of `${alphabet}=+/.`) {
        const decoded = decodeCursorText(`${encodeCursorText(text)}${extra}`, 64);
        if (decoded !== null) {
          expect(decoded).not.toBe(text);
          expect(decoded).not.toContain('\0');
          expect(encodeCursorText(decoded)).toBe(`${encodeCursorText(text)}${extra}`);
        }
      }
    }
  });

  it.each([
    ['empty', ''],
    ['too long', encodeCursorText('x'.repeat(49))],
    ['padding', `${encodeCursorText('v1:1')}=`],
    ['standard base64 characters', '+/+/'],
    ['a length of 4n + 1', `${encodeCursorText('abc')}A`],
    ['stray low bits in the last character', encodeCursorText('ab').replace(/.$/, 'j')],
    ['bytes that are not UTF-8', Buffer.from([0x76, 0x31, 0xff, 0xfe]).toString('base64url')],
    ['a lone surrogate’s bytes', Buffer.from([0xed, 0xa0, 0x80]).toString('base64url')],
  ])('refuses %s', (_name, cursor) => {
    expect(decodeCursorText(cursor, 64)).toBeNull();
  });

  it('keeps integers to PostgreSQL’s bigint', () => {
    expect(int8OrNull('9223372036854775807')).toBe(2n ** 63n - 1n);
    expect(int8OrNull('-9223372036854775808')).toBe(-(2n ** 63n));
    expect(int8OrNull('9223372036854775808')).toBeNull();
    expect(int8OrNull('-9223372036854775809')).toBeNull();
    expect(int8OrNull('9999999999999999999')).toBeNull();
  });
});
