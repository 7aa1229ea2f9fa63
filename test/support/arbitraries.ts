/**
 * fast-check arbitraries for hostile HTTP input (used by `hostile-input.e2e-spec.ts`).
 *
 * Every arbitrary yields a *symbolic* request (which caller's token, which body) rather than
 * resolved bytes, so a shrunk counterexample stays readable; `requestBytes` and the spec's
 * `resolveAuth` turn it into what goes on the wire.
 */
import fc from 'fast-check';
import { createHmac } from 'node:crypto';

// ---------------------------------------------------------------------------------------------
// Raw JSON tokens
// ---------------------------------------------------------------------------------------------

/** A JSON fragment written verbatim into a serialised body: `1e400`, `5.0`, deep nesting, … */
export class RawJson {
  constructor(readonly text: string) {}

  [fc.toStringMethod](): string {
    const shown =
      this.text.length > 60 ? `${this.text.slice(0, 60)}…(${this.text.length})` : this.text;
    return `raw(${shown})`;
  }
}

const raw = (text: string) => new RawJson(text);

/** `JSON.stringify` that writes {@link RawJson} fragments verbatim; `undefined` becomes ''. */
export function toJsonText(value: unknown): string {
  const fragments: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) =>
    v instanceof RawJson ? `\u0001raw${fragments.push(v.text) - 1}\u0001` : v,
  );
  if (text === undefined) return '';
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_m, i: string) => fragments[Number(i)]);
}

/** Sets `key` as an own enumerable property, even `__proto__`. */
function withOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return target;
}

// ---------------------------------------------------------------------------------------------
// Strings and scalar values
// ---------------------------------------------------------------------------------------------

/** Units whose repetition probes length limits: UTF-16 pairs, variation selectors, NUL, … */
const LENGTH_UNITS = ['a', 'é', '😀', 'a\uFE0F', '\u0000', ' ', 'e\u0301', '\u200b', '\ud800'];
const LENGTHS = [31, 32, 33, 63, 64, 65, 99, 100, 101, 254, 255, 256, 320, 321, 1000, 20000];

/** Strings around the contract's length limits (32, 64, 100, 255, 320), in awkward units. */
export const boundaryString: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...LENGTH_UNITS),
    fc.constantFrom(...LENGTHS),
    fc.constantFrom('', ' ', 'x'),
  )
  .map(([unit, n, pad]) => pad + unit.repeat(n) + pad);

/**
 * Strings of `limit` "characters" or just around it, counted in every way there is: UTF-16
 * units, code points, graphemes (a base letter plus a variation selector is one for some
 * validators and two code points for PostgreSQL).
 */
export function aroundLimit(limit: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...LENGTH_UNITS),
      fc.constantFrom(Math.ceil(limit / 2) + 1, limit - 1, limit, limit + 1),
    )
    .map(([unit, n]) => unit.repeat(n));
}

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0000\u0000\u0000',
  '\t\r\n',
  '😀',
  '\ud800',
  'a\udfff',
  '\u202eevil',
  '\ufeff',
  'a\uFE0F',
  'null',
  'undefined',
  'true',
  '1',
  '-1',
  '1e400',
  'NaN',
  "' OR 1=1 --",
  "'); DROP TABLE lead; --",
  '{"a":1}',
  '[]',
  '\\',
  '"',
  '\\u0000',
  '%00',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
];

/** Strings meant to break things: random Unicode, control characters, NUL, injections. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 24 }),
  fc.string({ unit: 'binary-ascii', maxLength: 24 }),
  fc.constantFrom(...SPECIAL_STRINGS),
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }))
    .map(([a, b]) => `${a}\u0000${b}`),
  boundaryString,
);

/** JSON number literals JSON.stringify cannot write (or writes differently). */
const rawNumber = fc
  .constantFrom(
    '1e400',
    '-1e400',
    '-0',
    '0.0',
    '1.0',
    '1e0',
    '10E-1',
    '0.1e1',
    '2147483647',
    '2147483648',
    '9007199254740993',
    '123456789012345678901234567890',
    '1.0000000000000001',
    '4.9e-324',
  )
  .map(raw);

/** Nesting deep enough to overflow a recursive walker (JSON.parse itself copes). */
export const deepNesting = fc
  .constantFrom(50, 3000, 20000)
  .map((n) => raw('['.repeat(n) + ']'.repeat(n)));

/** Any scalar a JSON body can carry, plus the awkward number literals. */
export const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double(), // NaN and ±Infinity serialise as null
  fc.constantFrom(0, -1, 1.5, -0.5, 2 ** 31 - 1, 2 ** 31, 2 ** 53, 2 ** 64, 1e21, 1e308, -1e308),
  fc.boolean(),
  fc.constant(null),
  rawNumber,
);

/** Keys that name Object.prototype members: a naive `Object.assign` onto a class breaks on them. */
export const prototypeKey = fc.constantFrom(
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'toJSON',
  'isPrototypeOf',
);

const junkKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', 'prototype', 'phone ', 'Phone'),
  prototypeKey,
);

/** Any JSON value: scalars, arrays, objects (some with a `__proto__` key), deep nesting. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileScalar },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 5 }) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(junkKey, hostileScalar), { maxLength: 4 })
      .map((entries) =>
        entries.reduce((o, [k, v]) => withOwn(o, k, v), {} as Record<string, unknown>),
      ),
  },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: fc.constantFrom([], {}, [null], [[]], [{}], { phone: '+14155550000' }) },
);

// ---------------------------------------------------------------------------------------------
// Lead upload bodies
// ---------------------------------------------------------------------------------------------

/** The same few hundred US numbers in several spellings, so duplicates are frequent. */
const PHONE_FORMATS: Array<(n: string) => string> = [
  (n) => `+1415555${n}`,
  (n) => `(415) 555-${n}`,
  (n) => ` 415.555.${n} `,
  (n) => `1-415-555-${n}`,
  (n) => `+1 415 555 ${n}`,
];
export const validPhone = fc
  .tuple(fc.integer({ min: 0, max: 199 }), fc.integer({ min: 0, max: PHONE_FORMATS.length - 1 }))
  .map(([n, f]) => PHONE_FORMATS[f](String(n).padStart(4, '0')));

const phoneValue = fc.oneof(
  { weight: 8, arbitrary: validPhone },
  { weight: 1, arbitrary: fc.constantFrom('+442079460958', '+33 1 42 68 53 00', '+447911123456') },
  {
    weight: 1,
    arbitrary: fc
      .tuple(validPhone, fc.constantFrom('\u0000', '😀', '\u200b', ' ext. 12', 'x', '\ud800'))
      .map(([p, s]) => p + s),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^\+?[0-9 ().-]{0,24}$/) },
  { weight: 1, arbitrary: nastyString },
  { weight: 1, arbitrary: hostileValue },
);

const emailValue = fc.oneof(
  { weight: 3, arbitrary: fc.emailAddress() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'ada@example.com',
      ' ADA@Example.com ',
      '',
      '   ',
      'not-an-email',
      'a@b',
      'ü@exämple.com',
      'a\u0000@example.com',
      'ada@example.com\u0000',
      `${'a'.repeat(64)}@${'b'.repeat(250)}.com`,
      `${'a'.repeat(310)}@example.com`,
    ),
  },
  { weight: 1, arbitrary: nastyString },
  { weight: 1, arbitrary: hostileValue },
);

const textValue = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: boundaryString },
  { weight: 1, arbitrary: aroundLimit(255) },
  { weight: 2, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: hostileValue },
);

/** One element of `leads`: mostly a lead object with hostile fields, sometimes not an object. */
export const leadValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(
        fc.record(
          {
            phone: phoneValue,
            email: emailValue,
            first_name: textValue,
            last_name: textValue,
            company: textValue,
            title: textValue,
          },
          { requiredKeys: ['phone'] },
        ),
        fc.array(fc.tuple(junkKey, hostileValue), { maxLength: 2 }),
      )
      .map(([lead, extra]) =>
        extra.reduce((o, [k, v]) => (k in lead ? o : withOwn(o, k, v)), { ...lead } as Record<
          string,
          unknown
        >),
      ),
  },
  { weight: 1, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 3 }) },
);

/** The campaign ids, endpoint ids and keys the arbitraries aim at (see the spec's fixture). */
export interface Targets {
  /** Campaigns the test owns: A and B of one account, C of another. */
  campaigns: { A: number; B: number; C: number };
  /** Endpoint ids: one of A, one of C. */
  endpoints: { A: number; C: number };
  /** API key ids and account ids, for forging claims. */
  keys: Record<Who, { id: number; accountId: number }>;
}

const TOP_FIELDS = [
  'campaign_id',
  'compliance_acknowledged',
  'leads',
  'source',
  'tags',
  'skip_duplicates',
  'disclaimer_version',
] as const;
type TopField = (typeof TOP_FIELDS)[number];

function campaignIdValue(targets: Targets): fc.Arbitrary<unknown> {
  const { A, B, C } = targets.campaigns;
  const known = fc.constantFrom(A, A, A, B, C);
  return fc.oneof(
    known.map((id) => raw(`${id}.0`)),
    known.map((id) => raw(`${id}e0`)),
    known.map((id) => raw(`${id}0e-1`)),
    known.map((id) => raw(`${id}.5`)),
    known.map(String),
    known.map((id) => -id),
    known.map((id) => [id]),
    known.map((id) => ({ id })),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
    hostileValue,
  );
}

/** Hostile replacement values per top-level field of an upload. */
function fieldValue(field: TopField, targets: Targets): fc.Arbitrary<unknown> {
  switch (field) {
    case 'campaign_id':
      return campaignIdValue(targets);
    case 'compliance_acknowledged':
      return fc.oneof(
        fc.constantFrom('true', 'True', 1, 0, false, null, [true], { value: true }, ''),
        fc.constant(raw('true')),
        hostileValue,
      );
    case 'leads':
      return fc.oneof(
        { weight: 4, arbitrary: hostileValue },
        { weight: 2, arbitrary: fc.array(hostileScalar, { minLength: 1, maxLength: 4 }) },
        { weight: 1, arbitrary: fc.constant([]) },
        // The size limits: 10,000 leads are allowed, 10,001 are not.
        { weight: 1, arbitrary: fc.constant(raw(`[${Array(10_001).fill('{}').join(',')}]`)) },
        {
          weight: 1,
          arbitrary: validPhone.map((p) =>
            raw(
              `[${Array(10_000)
                .fill(JSON.stringify({ phone: p }))
                .join(',')}]`,
            ),
          ),
        },
      );
    case 'source':
      return fc.oneof(aroundLimit(100), nastyString, hostileValue);
    case 'disclaimer_version':
      return fc.oneof(aroundLimit(32), nastyString, hostileValue);
    case 'tags':
      return fc.oneof(
        fc.array(nastyString, { maxLength: 5 }),
        fc.array(aroundLimit(64), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(50, 51, 1000).map((n) => Array.from({ length: n }, (_, i) => `t${i}`)),
        fc.array(hostileScalar, { minLength: 1, maxLength: 3 }),
        hostileValue,
      );
    case 'skip_duplicates':
      return fc.oneof(fc.constantFrom('true', 'false', 0, 1, null, [], [false]), hostileValue);
  }
}

type Mutation = { op: 'delete'; field: TopField } | { op: 'set'; field: string; value: unknown };

function mutation(targets: Targets): fc.Arbitrary<Mutation> {
  return fc.oneof(
    fc.constantFrom(...TOP_FIELDS).map((field): Mutation => ({ op: 'delete', field })),
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(...TOP_FIELDS)
        .chain((field) =>
          fieldValue(field, targets).map((value): Mutation => ({ op: 'set', field, value })),
        ),
    },
    fc
      .tuple(
        fc.oneof(junkKey, fc.constantFrom('campaignId', 'lead', 'CAMPAIGN_ID', 'campaign_id ')),
        hostileValue,
      )
      .map(([field, value]): Mutation => ({ op: 'set', field, value })),
  );
}

/**
 * An upload body: a valid one (leads with hostile fields inside) with zero to three
 * top-level mutations (a field deleted, retyped, or an unknown field added).
 */
export function uploadBody(targets: Targets): fc.Arbitrary<Record<string, unknown>> {
  const { A, B, C } = targets.campaigns;
  const valid = fc.record(
    {
      campaign_id: fc.constantFrom(A, A, A, B, C),
      compliance_acknowledged: fc.constant(true),
      leads: fc.array(leadValue, { minLength: 1, maxLength: 8 }),
      source: fc.oneof(
        fc.constantFrom('api', '', 'crm-sync', 'x'.repeat(100)),
        fc.string({ maxLength: 20 }),
      ),
      tags: fc.oneof(
        fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 4 }),
        fc.constant(Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(64, 'x'))),
      ),
      skip_duplicates: fc.boolean(),
      disclaimer_version: fc.constantFrom('v1.0', 'v2.3', '', 'x'.repeat(32)),
    },
    { requiredKeys: ['campaign_id', 'compliance_acknowledged', 'leads'] },
  );
  const mutations = fc.oneof(
    { weight: 4, arbitrary: fc.constant([] as Mutation[]) },
    { weight: 5, arbitrary: fc.array(mutation(targets), { minLength: 1, maxLength: 3 }) },
  );
  return fc.tuple(valid, mutations).map(([body, ops]) => {
    const out: Record<string, unknown> = { ...body };
    for (const op of ops) {
      if (op.op === 'delete') delete out[op.field];
      else withOwn(out, op.field, op.value);
    }
    return out;
  });
}

// ---------------------------------------------------------------------------------------------
// Raw bodies
// ---------------------------------------------------------------------------------------------

/** A request body: JSON to serialise, literal text, or bytes (not necessarily UTF-8). */
export type BodySpec =
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: number[] };

/** The bytes of a {@link BodySpec}. */
export function requestBytes(body: BodySpec): Buffer {
  switch (body.kind) {
    case 'json':
      return Buffer.from(toJsonText(body.value), 'utf8');
    case 'text':
      return Buffer.from(body.text, 'utf8');
    case 'bytes':
      return Buffer.from(body.bytes);
  }
}

/** Bodies that are not a well-formed upload: broken JSON, odd encodings, non-objects, … */
export function rawBody(targets: Targets): fc.Arbitrary<BodySpec> {
  const { A } = targets.campaigns;
  const base = (campaign: string, more = '') =>
    `{"campaign_id":${campaign},"compliance_acknowledged":true,"leads":[{"phone":"+14155550042"${more}}]}`;
  const goodText = base(String(A));
  const text = (t: string): BodySpec => ({ kind: 'text', text: t });
  const bytes = (b: Buffer): BodySpec => ({ kind: 'bytes', bytes: [...b] });
  return fc.oneof(
    // JSON values of every kind, objects included.
    fc
      .jsonValue({ maxDepth: 4, stringUnit: 'binary' })
      .map((value): BodySpec => ({ kind: 'json', value })),
    fc.anything({ maxDepth: 3 }).map((value): BodySpec => ({ kind: 'json', value })),
    // Raw numbers and tokens where campaign_id goes.
    fc
      .constantFrom(
        '1e400',
        '-0',
        `${A}.0`,
        `${A}e0`,
        `0${A}`,
        `${A}.5`,
        `"${A}"`,
        'NaN',
        'Infinity',
        '0x1',
        `${A}n`,
        'true',
        `[${A}]`,
        `${A}.0000000000000001`,
        `${A}00e-2`,
        '',
        'null',
      )
      .map((c) => text(base(c))),
    // Duplicate keys, prototype keys, NUL escapes, deep nesting.
    fc.constantFrom(
      text(
        `{"campaign_id":${A},"campaign_id":"x","compliance_acknowledged":true,"leads":[{"phone":"1"}]}`,
      ),
      text(
        `{"campaign_id":"x","campaign_id":${A},"compliance_acknowledged":true,"leads":[{"phone":"+14155550042"}]}`,
      ),
      text(base(String(A), ',"__proto__":{"x":1}')),
      text(
        `{"__proto__":{"compliance_acknowledged":true},"campaign_id":${A},"leads":[{"phone":"+14155550042"}]}`,
      ),
      text(base(String(A), ',"constructor":{"prototype":{"x":1}}')),
      text(base(String(A), ',"first_name":"\\u0000"')),
      text(
        `{"campaign_id":${A},"compliance_acknowledged":true,"source":"a\\u0000b","leads":[{"phone":"+14155550042"}]}`,
      ),
      text(
        `{"campaign_id":${A},"compliance_acknowledged":true,"tags":["\\u0000"],"leads":[{"phone":"+14155550042"}]}`,
      ),
      text(base(String(A), ',"x":"\\ud800"')),
      text(base(String(A), `,"x":${'['.repeat(20000)}${']'.repeat(20000)}`)),
      text(base(String(A), `,"x":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`)),
      text(
        `{"campaign_id":${A},"compliance_acknowledged":true,"leads":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      ),
      text(''),
      text(' '),
      text('\n\t'),
      text('null'),
      text('[]'),
      text('""'),
      text('0'),
      text('{}'),
      text('{'),
      text('}'),
      text('{"a":}'),
      text("{'campaign_id':1}"),
      text(goodText + ' garbage'),
      text(goodText + goodText),
      text(`\ufeff${goodText}`),
      text(`${goodText.slice(0, -1)},}`),
      text(`/* c */${goodText}`),
      bytes(Buffer.from(goodText, 'utf16le')),
      bytes(
        Buffer.concat([
          Buffer.from(base(String(A), ',"source":"').slice(0, -3)),
          Buffer.from([0xff, 0xfe, 0xc0, 0xaf]),
          Buffer.from('"}]}'),
        ]),
      ),
      bytes(Buffer.from(`{"api_key":"\u0000${'x'.repeat(40)}"}`)),
    ),
    // Truncated or corrupted good bodies.
    fc.integer({ min: 0, max: goodText.length - 1 }).map((i) => text(goodText.slice(0, i))),
    fc
      .tuple(
        fc.integer({ min: 0, max: goodText.length - 1 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
      )
      .map(([i, s]) => text(goodText.slice(0, i) + s + goodText.slice(i + 1))),
    // Random text and random bytes.
    fc.string({ unit: 'binary', maxLength: 64 }).map(text),
    fc.uint8Array({ maxLength: 64 }).map((b) => bytes(Buffer.from(b))),
  );
}

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

/** Node's client refuses control characters in header values: keep Latin-1 text and tabs. */
export const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

const headerString = fc.string({ unit: 'binary-ascii', maxLength: 40 }).map(headerSafe);

/** A Content-Type header value, or undefined for none. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json;charset=UTF-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json ; x=y',
      ' application/json',
      'application/json, text/plain',
      'application/jsonx',
      'application/ld+json',
      'application/vnd.api+json',
      'text/json',
      'text/plain',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '*/*',
      'application/*',
      '',
      ';',
      'application/json; charset="\u00ff"',
    ),
  },
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: headerString },
);

/** Whose genuine token: A (key of A's account), R (same account, key limited to B), C (another account). */
export type Who = 'A' | 'R' | 'C';

/** An Authorization header, symbolically (tokens are resolved when the request is sent). */
export type AuthSpec =
  | { kind: 'none' }
  | { kind: 'token'; who: Who; prefix: string; suffix: string }
  | {
      kind: 'mangled';
      who: Who;
      how: 'truncate' | 'flip' | 'dropSignature' | 'swapParts';
      at: number;
    }
  | { kind: 'forged'; header: unknown; payload: unknown; sign: 'secret' | 'wrong-secret' | 'none' }
  | { kind: 'raw'; value: string };

function forgedAuth(targets: Targets): fc.Arbitrary<AuthSpec> {
  const now = Math.floor(Date.now() / 1000);
  const who = fc.constantFrom<Who>('A', 'R', 'C');
  const claims = who.map((w) => ({
    sub: String(targets.keys[w].id),
    acc: targets.keys[w].accountId,
    iat: now,
    exp: now + 3600,
    jti: '00000000-0000-4000-8000-000000000000',
    iss: 'campaign-api',
    aud: 'campaign-api',
  }));
  const ids = Object.values(targets.keys);
  const claimMutation = fc.oneof(
    fc
      .constantFrom('sub', 'acc', 'exp', 'iat', 'iss', 'aud', 'jti')
      .map((k) => ({ k, v: undefined as unknown })),
    fc.record({
      k: fc.constantFrom('sub', 'acc', 'exp', 'iat', 'nbf', 'iss', 'aud', 'jti', 'extra'),
      v: fc.oneof(
        hostileValue,
        fc.constantFrom(
          ...ids.map((k) => String(k.id)),
          ...ids.map((k) => k.id),
          ...ids.map((k) => k.accountId),
        ),
        fc.constantFrom(
          '0',
          '01',
          '-1',
          '99999999999',
          '2147483648',
          '1e3',
          ' 1',
          now - 60,
          now + 10_000,
        ),
        fc.constantFrom(['campaign-api'], ['other', 'campaign-api'], 'other', 1e300),
      ),
    }),
  );
  const payload = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(claims, fc.array(claimMutation, { maxLength: 3 })).map(([c, ms]) => {
        const out: Record<string, unknown> = { ...c };
        for (const { k, v } of ms) {
          if (v === undefined) delete out[k];
          else out[k] = v;
        }
        return out;
      }),
    },
    { weight: 1, arbitrary: hostileValue },
    { weight: 1, arbitrary: nastyString.map(raw) }, // not JSON at all
  );
  const header = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ alg: 'HS256', typ: 'JWT' }) },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          alg: fc.oneof(
            fc.constantFrom(
              'HS256',
              'none',
              'None',
              'HS384',
              'HS512',
              'RS256',
              'ES256',
              'hs256',
              '',
            ),
            hostileScalar,
          ),
          typ: fc.oneof(fc.constant('JWT'), hostileScalar),
          kid: hostileValue,
          crit: fc.constantFrom(['exp'], ['b64'], 'x'),
          b64: fc.boolean(),
        },
        { requiredKeys: ['alg'] },
      ),
    },
    { weight: 1, arbitrary: hostileValue },
    { weight: 1, arbitrary: nastyString.map(raw) },
  );
  // Kept under Node's 16 KiB of headers: oversized headers are a case of their own (authSpec).
  return fc
    .record({ header, payload, sign: fc.constantFrom('secret', 'secret', 'wrong-secret', 'none') })
    .map((f) => ({ kind: 'forged' as const, ...f }))
    .filter((f) => forgeJwt(f, 'x').length <= 12_000);
}

/** Authorization headers: genuine, mangled, forged with hostile claims, garbage, absent. */
export function authSpec(targets: Targets): fc.Arbitrary<AuthSpec> {
  const who = fc.constantFrom<Who>('A', 'A', 'A', 'R', 'C');
  return fc.oneof(
    {
      weight: 12,
      arbitrary: who.map((w): AuthSpec => ({
        kind: 'token',
        who: w,
        prefix: 'Bearer ',
        suffix: '',
      })),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('token' as const),
        who,
        prefix: fc.constantFrom(
          'bearer ',
          'BEARER ',
          'Bearer  ',
          ' Bearer ',
          'Bearer\t',
          'Bearer',
          'Token ',
          'JWT ',
          'Basic ',
          '',
        ),
        suffix: fc.constantFrom('', ' ', 'x', '.', ', Bearer x', '\t'),
      }),
    },
    { weight: 1, arbitrary: fc.constant<AuthSpec>({ kind: 'none' }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('mangled' as const),
        who,
        how: fc.constantFrom('truncate', 'flip', 'dropSignature', 'swapParts'),
        at: fc.nat(400),
      }),
    },
    { weight: 3, arbitrary: forgedAuth(targets) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          headerString,
          headerString.map((s) => `Bearer ${s}`),
          fc.constantFrom(
            'Bearer',
            'Bearer ',
            'Bearer null',
            'Bearer undefined',
            'Bearer a.b.c',
            'Bearer ..',
            'Basic dXNlcjpwYXNz',
            `Bearer ${'a'.repeat(3000)}`,
            `Bearer ${'a'.repeat(17_000)}`, // over Node's 16 KiB of headers
          ),
          fc
            .array(fc.base64String({ maxLength: 40 }), { minLength: 1, maxLength: 4 })
            .map((p) => `Bearer ${p.join('.')}`),
        )
        .map((value): AuthSpec => ({ kind: 'raw', value })),
    },
  );
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** The JWT of a {@link AuthSpec} of kind `forged`, signed with `secret` as it says. */
export function forgeJwt(spec: Extract<AuthSpec, { kind: 'forged' }>, secret: string): string {
  const part = (v: unknown) => base64url(v instanceof RawJson ? v.text : toJsonText(v));
  const signingInput = `${part(spec.header)}.${part(spec.payload)}`;
  const key = spec.sign === 'secret' ? secret : 'not-the-secret-0123456789abcdefghijklmnopqrst';
  const signature =
    spec.sign === 'none' ? '' : createHmac('sha256', key).update(signingInput).digest('base64url');
  return `${signingInput}.${signature}`;
}

/** A genuine token damaged as `how` says. */
export function mangleJwt(
  token: string,
  how: Extract<AuthSpec, { kind: 'mangled' }>['how'],
  at: number,
) {
  const i = at % token.length;
  const parts = token.split('.');
  switch (how) {
    case 'truncate':
      return token.slice(0, i);
    case 'flip':
      return token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    case 'dropSignature':
      return `${parts[0]}.${parts[1]}.`;
    case 'swapParts':
      return `${parts[1]}.${parts[0]}.${parts[2]}`;
  }
}

/** An Idempotency-Key header: mostly none, often one of a few reused keys, sometimes junk. */
export const idempotencyKey: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: fc.constantFrom('k1', 'k2', 'k3') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', ' ', 'x'.repeat(255), 'x'.repeat(256), '\u00ff\u00fe', 'ü'),
  },
  { weight: 1, arbitrary: headerString },
);

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

/** A path segment standing for an id: the real ones, near misses, and junk (percent-encoded). */
export function pathId(known: number[]): fc.Arbitrary<string> {
  const id = fc.constantFrom(...known);
  return fc.oneof(
    { weight: 6, arbitrary: id.map(String) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          id,
          fc.constantFrom(
            '0{}',
            '+{}',
            '-{}',
            '{}.0',
            '{}e0',
            '{} ',
            '%20{}',
            '{}%00',
            '{}%2F',
            '{}a',
            '0x{}',
            '{}{}',
          ),
        )
        .map(([n, f]) => f.replaceAll('{}', String(n)).replaceAll(' ', '%20')),
    },
    { weight: 1, arbitrary: fc.nat().map(String) },
    { weight: 1, arbitrary: fc.integer({ min: -(2 ** 40), max: 0 }).map(String) },
    { weight: 1, arbitrary: fc.integer({ min: 10, max: 400 }).map((n) => '9'.repeat(n)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '0',
        '2147483647',
        '2147483648',
        '4294967296',
        '9007199254740993',
        '18446744073709551616',
        '1e3',
        'NaN',
        'Infinity',
        'null',
        'undefined',
        '%',
        '%zz',
        '%00',
        '%2F',
        '%2e%2e',
        '..',
        '.',
        '%C0%AF',
        '%FF',
        '%E2%82',
        '%EF%BC%91',
        '%D9%A1',
        '%F0%9F%98%80',
        ':id',
        '*',
        '%3Fx',
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
        .map(encodeURIComponent),
    },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).map(encodeURIComponent),
    },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,12}$/) },
  );
}
