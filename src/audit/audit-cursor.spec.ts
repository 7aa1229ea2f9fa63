import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor';

describe('audit log cursors (docs/dashboard.md#audit-log)', () => {
  it('round-trip microsecond times and ids, opaquely', () => {
    const cursor = { createdAtMicros: 1_795_500_000_123_456n, id: 42 };
    const encoded = encodeAuditCursor(cursor);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeAuditCursor(encoded)).toEqual(cursor);
  });

  it.each([
    '',
    'x',
    '!!!',
    Buffer.from('1.0').toString('base64url'),
    Buffer.from('a.1').toString('base64url'),
    'A'.repeat(65),
  ])('refuses %j naming the field', (value) => {
    expect(() => decodeAuditCursor(value)).toThrow('cursor is not a cursor of this list');
  });
});
