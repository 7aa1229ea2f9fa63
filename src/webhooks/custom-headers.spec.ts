import { InvalidInputError } from '../common/domain-error';
import {
  auditedCustomHeaders,
  customHeaderViews,
  maskSecretValue,
  sealCustomHeaders,
  validateCustomHeaders,
  type CustomHeaderInput,
  type StoredCustomHeader,
} from './custom-headers';

/** Expects `run` to throw an InvalidInputError about field `header` whose message contains `message`. */
function expectRefused(run: () => unknown, message: string): void {
  expect(run).toThrow(InvalidInputError);
  expect(run).toThrow(
    expect.objectContaining({ field: 'header', message: expect.stringContaining(message) }),
  );
}

const reverse = (value: string) => `enc(${[...value].reverse().join('')})`;

describe('custom headers (docs/webhooks.md#custom-headers)', () => {
  describe('validateCustomHeaders', () => {
    it('keeps names as given and trims names and values, in order', () => {
      expect(
        validateCustomHeaders([
          { name: ' X-Tenant ', value: '  acme ' },
          { name: 'Authorization', value: 'Bearer abc', secret: true },
        ]),
      ).toEqual([
        { name: 'X-Tenant', secret: false, value: 'acme' },
        { name: 'Authorization', secret: true, value: 'Bearer abc' },
      ]);
    });

    it('accepts 20 headers at the length limits and an empty list', () => {
      const twenty = Array.from({ length: 20 }, (_, i) => ({
        name: `X-${i}`.padEnd(100, 'a'),
        value: 'v'.repeat(300),
      }));
      expect(validateCustomHeaders(twenty)).toHaveLength(20);
      expect(validateCustomHeaders([{ name: 'X-A', value: 'v'.repeat(1000) }])).toHaveLength(1);
      expect(validateCustomHeaders([])).toEqual([]);
    });

    it.each<[string, CustomHeaderInput[], string]>([
      ['an empty name', [{ name: ' ', value: 'x' }], 'header 1 needs a name'],
      [
        'a name that is not a token',
        [{ name: 'X Tenant', value: 'x' }],
        'header name "X Tenant" is not a valid HTTP header name',
      ],
      ['a name with a colon', [{ name: 'X:A', value: 'x' }], 'header name "X:A" is not a valid'],
      [
        'a name longer than 100 characters',
        [{ name: 'X'.repeat(101), value: 'x' }],
        'is longer than 100 characters',
      ],
      ['Connection', [{ name: 'Connection', value: 'close' }], 'header "Connection" cannot be set'],
      ['Keep-Alive', [{ name: 'keep-alive', value: '1' }], 'hop-by-hop'],
      ['TE', [{ name: 'TE', value: 'trailers' }], 'hop-by-hop'],
      ['Trailer', [{ name: 'Trailer', value: 'x' }], 'hop-by-hop'],
      ['Transfer-Encoding', [{ name: 'Transfer-Encoding', value: 'chunked' }], 'hop-by-hop'],
      ['Upgrade', [{ name: 'Upgrade', value: 'h2c' }], 'hop-by-hop'],
      ['Proxy-Authorization', [{ name: 'Proxy-Authorization', value: 'x' }], 'proxies'],
      ['a webhook- name', [{ name: 'Webhook-Id', value: 'x' }], 'signature headers'],
      ['Host', [{ name: 'HOST', value: 'x' }], 'header "HOST" cannot be set'],
      ['Content-Length', [{ name: 'content-length', value: '1' }], 'cannot be set'],
      ['Content-Type', [{ name: 'Content-Type', value: 'text/plain' }], 'application/json'],
      ['User-Agent', [{ name: 'User-Agent', value: 'me' }], 'its own User-Agent'],
      ['Expect', [{ name: 'Expect', value: '100-continue' }], 'cannot be set'],
      [
        'a name given twice in another case',
        [
          { name: 'X-A', value: '1' },
          { name: 'x-a', value: '2' },
        ],
        'header "x-a" is given twice (header names ignore case)',
      ],
      ['a missing value', [{ name: 'X-A' }], 'header "X-A" needs a value'],
      ['a blank value', [{ name: 'X-A', value: '  ' }], 'header "X-A" needs a value'],
      [
        'a value with CR LF',
        [{ name: 'X-A', value: 'a\r\nX-Evil: 1' }],
        'header "X-A": the value must not contain CR, LF or NUL',
      ],
      ['a value with LF', [{ name: 'X-A', value: 'a\nb' }], 'must not contain CR, LF or NUL'],
      ['a value with NUL', [{ name: 'X-A', value: 'a\u0000b' }], 'must not contain CR, LF or NUL'],
      ['a value with another control', [{ name: 'X-A', value: 'a\u0007' }], 'visible ASCII'],
      ['a value that is not ASCII', [{ name: 'X-A', value: 'café' }], 'visible ASCII'],
      [
        'a value longer than 1,000 characters',
        [{ name: 'X-A', value: 'v'.repeat(1001) }],
        'header "X-A": the value is longer than 1000 characters',
      ],
      [
        '21 headers',
        Array.from({ length: 21 }, (_, i) => ({ name: `X-${i}`, value: 'v' })),
        'headers: at most 20 custom headers are allowed, got 21',
      ],
      [
        'more than 8,192 characters in all',
        Array.from({ length: 9 }, (_, i) => ({ name: `X-${i}`, value: 'v'.repeat(1000) })),
        'headers: names and values may hold at most 8192 characters in all',
      ],
    ])('refuses %s, naming the header', (_what, input, message) => {
      expectRefused(() => validateCustomHeaders(input), message);
    });

    it('lets a secret header without a value keep the stored secret of that name', () => {
      const stored: StoredCustomHeader[] = [
        { name: 'Authorization', secret: true, encrypted: 'enc', masked: '••••' },
        { name: 'X-Plain', secret: false, value: 'p' },
      ];
      expect(validateCustomHeaders([{ name: 'authorization', secret: true }], stored)).toEqual([
        { name: 'authorization', secret: true, value: null },
      ]);
      // A plain header is never kept by omission, nor a secret one without a stored secret.
      expectRefused(
        () => validateCustomHeaders([{ name: 'X-Plain' }], stored),
        'header "X-Plain" needs a value',
      );
      expectRefused(
        () => validateCustomHeaders([{ name: 'X-Plain', secret: true }], stored),
        'header "X-Plain" needs a value',
      );
    });
  });

  describe('maskSecretValue', () => {
    it('shows the last 4 characters of a value of 16 or more, nothing of a shorter one', () => {
      expect(maskSecretValue('Bearer 0123456789abcdef')).toBe('••••cdef');
      expect(maskSecretValue('short-secret')).toBe('••••');
    });
  });

  describe('sealing, views and audit details', () => {
    const stored: StoredCustomHeader[] = [
      { name: 'Authorization', secret: true, encrypted: 'old-cipher', masked: '••••' },
    ];

    it('encrypts new secret values, copies kept ones, stores plain values as they are', () => {
      const checked = validateCustomHeaders(
        [
          { name: 'Authorization', secret: true },
          { name: 'X-Api-Key', value: 'key-0123456789abcdef', secret: true },
          { name: 'X-Tenant', value: 'acme' },
        ],
        stored,
      );
      const sealed = sealCustomHeaders(checked, stored, reverse);
      expect(sealed).toEqual([
        { name: 'Authorization', secret: true, encrypted: 'old-cipher', masked: '••••' },
        {
          name: 'X-Api-Key',
          secret: true,
          encrypted: reverse('key-0123456789abcdef'),
          masked: '••••cdef',
        },
        { name: 'X-Tenant', secret: false, value: 'acme' },
      ]);
      expect(JSON.stringify(sealed)).not.toContain('key-0123456789abcdef');

      expect(customHeaderViews(sealed)).toEqual([
        { name: 'Authorization', secret: true, value: null, masked_value: '••••' },
        { name: 'X-Api-Key', secret: true, value: null, masked_value: '••••cdef' },
        { name: 'X-Tenant', secret: false, value: 'acme', masked_value: null },
      ]);
      expect(
        customHeaderViews(sealed, new Map([['X-Api-Key', 'key-0123456789abcdef']]))[1],
      ).toEqual({
        name: 'X-Api-Key',
        secret: true,
        value: 'key-0123456789abcdef',
        masked_value: '••••cdef',
      });

      const audited = auditedCustomHeaders(checked);
      expect(audited).toEqual([
        { name: 'Authorization', secret: true, value_changed: false },
        { name: 'X-Api-Key', secret: true, value_changed: true },
        { name: 'X-Tenant', secret: false, value: 'acme' },
      ]);
      expect(JSON.stringify(audited)).not.toContain('key-0123456789abcdef');
    });
  });
});
