import type { RawRequestDefaultExpression } from 'fastify';
import { generateRequestId } from './http-conventions';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function idFor(header: string | string[] | undefined): string {
  const raw = { headers: header === undefined ? {} : { 'x-request-id': header } };
  return generateRequestId(raw as unknown as RawRequestDefaultExpression);
}

describe('generateRequestId', () => {
  it.each(['trace-abc.123', 'req:42', 'a', 'A'.repeat(64), '0f8c5b8e-6f1c-4e1e-9a57-0a9d0f6f2f4e'])(
    'adopts the well-formed id %s',
    (id) => expect(idFor(id)).toBe(id),
  );

  it.each([
    ['a secret-shaped API key', `capi_${'A'.repeat(43)}`],
    ['an API key inside an id', `trace-capi_${'b'.repeat(20)}`],
    ['a signing secret prefix', 'whsec_abcdef'],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl'],
    ['a JWT header alone', 'eyJhbGciOiJIUzI1NiJ9'],
    ['three base64url parts', 'aaa.bbb.ccc'],
    ['65 characters', 'A'.repeat(65)],
    ['an empty id', ''],
    ['spaces and tabs', 'bad id\twith spaces'],
    ['a slash', 'a/b'],
  ])('replaces %s with a UUID', (_name, id) => {
    const generated = idFor(id);
    expect(generated).toMatch(UUID);
    expect(generated).not.toBe(id);
  });

  it('makes a UUID when there is no header or several', () => {
    expect(idFor(undefined)).toMatch(UUID);
    expect(idFor(['a', 'b'])).toMatch(UUID);
  });

  it('puts the id on the raw request for pino-http', () => {
    const raw = {
      headers: { 'x-request-id': 'trace-1' },
    } as unknown as RawRequestDefaultExpression;
    generateRequestId(raw);
    expect((raw as unknown as { id: string }).id).toBe('trace-1');
  });
});
