import { InvalidInputError } from './domain-error';
import { parsePageLimit } from './page-limit';

describe('parsePageLimit (docs/dashboard.md#requests-and-answers)', () => {
  const limits = { fallback: 50, max: 200 };

  it('gives the fallback when limit is not given', () => {
    expect(parsePageLimit(undefined, limits)).toBe(50);
    expect(parsePageLimit(null, limits)).toBe(50);
  });

  it('reads 1 to 4 decimal digits, and integers, from 1 to max', () => {
    expect(parsePageLimit('1', limits)).toBe(1);
    expect(parsePageLimit('200', limits)).toBe(200);
    expect(parsePageLimit('0050', limits)).toBe(50);
    expect(parsePageLimit(7, limits)).toBe(7);
    expect(parsePageLimit('1000', { fallback: 100, max: 1000 })).toBe(1000);
  });

  it.each([
    '',
    '0',
    '201',
    '00001',
    '-1',
    '+1',
    '1.0',
    '1e2',
    ' 1',
    'ten',
    '０１',
    0,
    201,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])('refuses %j naming limit and the range', (value) => {
    let thrown: unknown;
    try {
      parsePageLimit(value, limits);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect((thrown as InvalidInputError).field).toBe('limit');
    expect((thrown as Error).message).toBe('limit must be an integer from 1 to 200');
  });
});
