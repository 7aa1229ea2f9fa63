import { dirname, join } from 'node:path';

/** The shape of libphonenumber-js's `build/helpers/matchesEntirely.js` module. */
interface MatchesEntirelyModule {
  default: (text: string | undefined, pattern: string) => boolean;
}

/** Compiled `^(?:pattern)$` expressions, keyed by the metadata's pattern text. */
const compiled = new Map<string, RegExp>();

/**
 * libphonenumber-js's `matchesEntirely`, with each pattern compiled once. The patterns all come
 * from the library's metadata (a few thousand strings), so the cache is bounded. A RegExp
 * without the `g` or `y` flag keeps no state between `test` calls, so the answer is the same as
 * the original's, which builds `new RegExp('^(?:' + pattern + ')$')` on every call.
 */
export function matchesEntirelyCached(text: string | undefined, pattern: string): boolean {
  let expression = compiled.get(pattern);
  if (expression === undefined) {
    expression = new RegExp('^(?:' + pattern + ')$');
    compiled.set(pattern, expression);
  }
  return expression.test(text || '');
}

let installed: boolean | undefined;

/**
 * Makes libphonenumber-js compile each metadata pattern once (docs/architecture.md#lead-validation-cost).
 *
 * Validating a phone (`parsePhoneNumberFromString` + `isValid`) matches the national number
 * against the country's patterns several times, and the library's helper builds a new RegExp
 * from a pattern of up to a few KB on every match: about 2 µs each, most of the cost of a
 * phone. This replaces the helper's export, which every caller in the library's CommonJS build
 * reads at call time, by {@link matchesEntirelyCached}: same answers, compiled once.
 *
 * Idempotent. When the library's layout is not the expected one (another version), nothing is
 * changed and validation stays correct, only slower; `phone-patterns.spec.ts` fails then, so an
 * upgrade does not lose this silently.
 *
 * @returns whether the cached helper is in place.
 */
export function cachePhonePatterns(): boolean {
  if (installed !== undefined) return installed;
  installed = false;
  try {
    // The module's own `require`: the same module registry as the library's (Jest has its own).
    const root = dirname(require.resolve('libphonenumber-js/package.json'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path computed at run time
    const helper = require(join(root, 'build/helpers/matchesEntirely.js')) as
      Partial<MatchesEntirelyModule> | undefined;
    if (typeof helper?.default === 'function' && helper.default.length === 2) {
      helper.default = matchesEntirelyCached;
      installed = true;
    }
  } catch {
    // Another layout: keep the library as it is.
  }
  return installed;
}
