import { dirname, join } from 'node:path';
import type { CountryCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/examples.mobile.json';
import {
  cachePhonePatterns,
  matchesEntirelyCached,
  spreadParseOptionsNatively,
} from './phone-patterns';

const LIBRARY = dirname(require.resolve('libphonenumber-js/package.json'));
/** The library helper the cache replaces (not exported: reached by its file). */
const HELPER = join(LIBRARY, 'build/helpers/matchesEntirely.js');
/** The library module whose options spread is replaced. */
const WITH_ERROR = join(LIBRARY, 'build/parsePhoneNumberWithError_.js');

type Parse = typeof import('libphonenumber-js/max').parsePhoneNumberFromString;

/** Deterministic pseudo-random numbers (a linear congruential generator). */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Phones as clients send them: examples of every region, mutated, national and international. */
function corpus(): Array<{ raw: string; region: CountryCode }> {
  const random = generator(7);
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
  const cases: Array<{ raw: string; region: CountryCode }> = [];
  for (const [region, national] of Object.entries(examples) as Array<[CountryCode, string]>) {
    cases.push({ raw: national, region });
    const swapped = national.slice(0, -2) + digits(2);
    cases.push({ raw: swapped, region }, { raw: `0${national}`, region });
    cases.push({ raw: national.slice(0, -1), region }, { raw: `${national}${digits(1)}`, region });
  }
  for (let i = 0; i < 1_500; i++) {
    cases.push({ raw: `+${digits(1 + Math.floor(random() * 3))}${digits(8)}`, region: 'US' });
    cases.push({ raw: `(${digits(3)}) ${digits(3)}-${digits(4)}`, region: 'US' });
    cases.push({ raw: digits(9 + Math.floor(random() * 4)), region: 'GB' });
  }
  return cases;
}

const verdict = (parse: Parse, raw: string, region: CountryCode) => {
  const parsed = parse(raw, { defaultCountry: region });
  return parsed ? `${parsed.number} ${parsed.country} ${parsed.isValid()}` : 'none';
};

describe('cachePhonePatterns', () => {
  it('is in place for the installed libphonenumber-js (an upgrade that moves its helper fails here)', () => {
    expect(cachePhonePatterns()).toBe(true);
    expect(cachePhonePatterns()).toBe(true);
  });

  it('gives the same verdicts as the library without the cache, for every region', () => {
    expect(cachePhonePatterns()).toBe(true);
    expect(spreadParseOptionsNatively()).toBe(true);
    const cached = (
      jest.requireActual('libphonenumber-js/max') as { parsePhoneNumberFromString: Parse }
    ).parsePhoneNumberFromString;
    let original!: Parse;
    let originalHelper: unknown;
    let originalWithError: unknown;
    jest.isolateModules(() => {
      original = (
        jest.requireActual('libphonenumber-js/max') as { parsePhoneNumberFromString: Parse }
      ).parsePhoneNumberFromString;
      originalHelper = (
        jest.requireActual(HELPER) as {
          default: unknown;
        }
      ).default;
      originalWithError = (jest.requireActual(WITH_ERROR) as { default: unknown }).default;
    });
    expect(originalHelper).not.toBe(matchesEntirelyCached); // a fresh, uncached library
    expect(String(originalWithError)).toContain('_objectSpread'); // with Babel's spread
    const cases = corpus();
    const valid = cases.filter(({ raw, region }) =>
      verdict(original, raw, region).endsWith('true'),
    );
    expect(valid.length).toBeGreaterThan(300); // the corpus exercises valid numbers too
    for (const { raw, region } of cases) {
      expect(`${raw} ${region}: ${verdict(cached, raw, region)}`).toBe(
        `${raw} ${region}: ${verdict(original, raw, region)}`,
      );
    }
  });
});

describe('spreadParseOptionsNatively', () => {
  it('is in place for the installed libphonenumber-js (an upgrade that moves the spread fails here)', () => {
    expect(spreadParseOptionsNatively()).toBe(true);
    expect(spreadParseOptionsNatively()).toBe(true);
    const replaced = (jest.requireActual(WITH_ERROR) as { default: unknown }).default;
    expect(String(replaced)).not.toContain('_objectSpread');
  });

  it('passes parse the options it was given, with v2, and leaves them unchanged', () => {
    expect(spreadParseOptionsNatively()).toBe(true);
    const { parsePhoneNumberFromString } = jest.requireActual('libphonenumber-js/max') as {
      parsePhoneNumberFromString: Parse;
    };
    const options = { defaultCountry: 'GB' as const, extract: false };
    expect(parsePhoneNumberFromString('020 7946 0958', options)?.number).toBe('+442079460958');
    expect(parsePhoneNumberFromString('call 020 7946 0958', options)).toBeUndefined();
    expect(parsePhoneNumberFromString('call 020 7946 0958', { defaultCountry: 'GB' })?.number).toBe(
      '+442079460958',
    );
    expect(options).toEqual({ defaultCountry: 'GB', extract: false });
  });
});

describe('matchesEntirelyCached', () => {
  it('matches the whole text only, as the library helper does', () => {
    expect(matchesEntirelyCached('2123744203', '[2-9]\\d{9}')).toBe(true);
    expect(matchesEntirelyCached('21237442031', '[2-9]\\d{9}')).toBe(false);
    expect(matchesEntirelyCached('x2123744203', '[2-9]\\d{9}')).toBe(false);
    expect(matchesEntirelyCached('12', '1|12')).toBe(true); // alternation anchored as a group
    expect(matchesEntirelyCached(undefined, '\\d*')).toBe(true);
    expect(matchesEntirelyCached('', '\\d+')).toBe(false);
  });
});
