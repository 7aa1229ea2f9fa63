import { ApiError } from '../common/api-error';
import { ApiIdParam, ApiQueries } from './dashboard-docs';
import { Readable } from 'node:stream';
import {
  bodyNulProblems,
  checkedInput,
  DashboardIdPipe,
  documentedQueryNames,
  queryProblems,
} from './dashboard-input';
import { CreateEndpointRequestDto, UpdateEndpointRequestDto } from '../webhooks/http/endpoint.dto';
import { DeliveryLogQueryDto } from '../delivery/http/delivery-log.dto';

describe('dashboard path ids (docs/dashboard.md#access-rules)', () => {
  const pipe = new DashboardIdPipe();
  const read = (value: string) => pipe.transform(value, { type: 'param', data: 'endpoint_id' });

  it('reads canonical positive integers of up to 16 digits', () => {
    expect(read('1')).toBe(1);
    expect(read('2147483648')).toBe(2_147_483_648);
    expect(read('9'.repeat(16))).toBe(Number('9'.repeat(16)));
  });

  it.each(['', '0', '-1', '+1', '01', '1.0', '1e3', ' 1', 'abc', '9'.repeat(17)])(
    'answers 400 naming the parameter for %j',
    (value) => {
      expect(() => read(value)).toThrow(
        new ApiError(400, 'bad_request', 'endpoint_id must be a positive integer'),
      );
    },
  );
});

describe('dashboard bodies and queries (docs/dashboard.md#requests-and-answers)', () => {
  const problems = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(422);
      expect((error as ApiError).code).toBe('validation_failed');
      return (error as ApiError).message;
    }
    throw new Error('accepted');
  };

  it('passes well-typed input through unchanged, leaving values to the domain', () => {
    const body = { url: 'ftp://not-checked-here', events: ['nope'], description: null };
    expect({ ...checkedInput(CreateEndpointRequestDto, body) }).toEqual(body);
    expect({ ...checkedInput(UpdateEndpointRequestDto, { enabled: false }) }).toEqual({
      enabled: false,
    });
    expect({ ...checkedInput(DeliveryLogQueryDto, undefined) }).toEqual({});
  });

  it('names every problem: unknown fields, wrong types, no conversion', () => {
    expect(
      problems(() =>
        checkedInput(CreateEndpointRequestDto, { url: 1, events: 'x', enabled: 'true', x: 1 }),
      ),
    ).toBe(
      'x is not a known field; url must be a string; events must be an array; enabled must be a boolean value',
    );
    expect(problems(() => checkedInput(UpdateEndpointRequestDto, { url: null }))).toBe(
      'url must be a string',
    );
    expect(problems(() => checkedInput(DeliveryLogQueryDto, { outcome: ['a', 'b'] }))).toBe(
      'outcome must be a string',
    );
  });
});

describe('dashboard query strings (docs/dashboard.md#requests-and-answers)', () => {
  class Routes {
    @ApiQueries([
      { name: 'q', required: true },
      { name: 'limit', required: false },
    ])
    search(): void {}

    @ApiIdParam('campaign_id', 'Campaign id')
    none(): void {}
  }

  it('reads the query parameters a route documents, and only those (path ids are not)', () => {
    expect([...documentedQueryNames(Routes.prototype.search)]).toEqual(['q', 'limit']);
    expect([...documentedQueryNames(Routes.prototype.none)]).toEqual([]);
  });

  it('names every undocumented parameter, then every documented one holding a NUL', () => {
    const known = new Set(['q', 'limit']);
    expect(queryProblems({ q: 'ada', limit: '5' }, known)).toEqual([]);
    expect(queryProblems({}, new Set())).toEqual([]);
    expect(queryProblems({ q: 'ada', page: '2', sort: '' }, known)).toEqual([
      'page is not a known field',
      'sort is not a known field',
    ]);
    expect(queryProblems({ q: 'a\u0000b', limit: ['1', '\u0000'], x: '\u0000' }, known)).toEqual([
      'x is not a known field',
      'q must not contain a NUL character',
      'limit must not contain a NUL character',
    ]);
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, '1']));
    expect(queryProblems(many, known)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `p${i} is not a known field`),
      'and 2 more unknown fields',
    ]);
  });
});

describe('NUL characters in dashboard bodies (docs/dashboard.md#requests-and-answers)', () => {
  it('finds none in bodies without one, nor in what is not a JSON body', () => {
    expect(bodyNulProblems({ url: 'https://a.example', events: ['x'], n: 1, o: null })).toEqual([]);
    expect(bodyNulProblems(undefined)).toEqual([]);
    expect(bodyNulProblems('a\u0000')).toEqual([]);
    expect(bodyNulProblems(new Readable())).toEqual([]);
  });

  it('leaves out the top-level fields a route checks itself, and only those', () => {
    const body = { description: 'a\u0000', headers: [{ name: 'X-A', value: 'b\u0000' }] };
    expect(bodyNulProblems(body, ['headers'])).toEqual([
      'description must not contain a NUL character',
    ]);
    expect(bodyNulProblems({ nested: { headers: '\u0000' } }, ['headers'])).toEqual([
      'nested.headers must not contain a NUL character',
    ]);
  });

  it('names every string value and every object whose field names hold a NUL, in body order', () => {
    expect(
      bodyNulProblems({
        email: 'a\u0000@example.com',
        tags: ['ok', 'b\u0000'],
        mapping: { phone: 0, 'first\u0000': 1, deep: [{ x: '\u0000' }] },
        name: 'ok',
      }),
    ).toEqual([
      'email must not contain a NUL character',
      'tags[1] must not contain a NUL character',
      'mapping has a field name with a NUL character',
      'mapping.deep[0].x must not contain a NUL character',
    ]);
    expect(bodyNulProblems({ 'a\u0000': 1 })).toEqual([
      'the body has a field name with a NUL character',
    ]);
  });

  it('names ten at most', () => {
    const body = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, '\u0000']));
    expect(bodyNulProblems(body)).toEqual(
      Array.from({ length: 10 }, (_, i) => `f${i} must not contain a NUL character`),
    );
  });
});
