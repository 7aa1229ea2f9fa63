import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor';

describe('audit log cursors (docs/dashboard.md#audit-log)', () => {
  it('round-trip microsecond times and ids, opaquely', () => {
    const cursor = { createdAtMicros: 1_795_500_000_123_456n, id: 42 };
    const encoded = encodeAuditCursor(cursor);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeAuditCursor(encoded)).toEqual(cursor);
    const last = { createdAtMicros: 2n ** 63n - 1n, id: Number.MAX_SAFE_INTEGER };
    expect(decodeAuditCursor(encodeAuditCursor(last))).toEqual(last);
  });

  it.each([
    '',
    'x',
    '!!!',
    Buffer.from('1.0').toString('base64url'),
    Buffer.from('a.1').toString('base64url'),
    'A'.repeat(65),
    // Beyond PostgreSQL's bigint: a 500 from the query before these were refused here.
    Buffer.from('9223372036854775808.1').toString('base64url'),
    Buffer.from('9999999999999999999.1').toString('base64url'),
    Buffer.from('01.1').toString('base64url'),
    Buffer.from('1.1\0').toString('base64url'),
    `${encodeAuditCursor({ createdAtMicros: 1n, id: 2 })}=`,
    `${encodeAuditCursor({ createdAtMicros: 1n, id: 2 })}A`,
  ])('refuses %j naming the field', (value) => {
    expect(() => decodeAuditCursor(value)).toThrow('cursor is not a cursor of this list');
  });
});
