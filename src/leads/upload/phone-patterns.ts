import { dirname, join } from 'node:path';

/** The shape of libphonenumber-js's `build/helpers/matchesEntirely.js` module. */
interface MatchesEntirelyModule {
  default: (text: string | undefined, pattern: string) => boolean;
}

/** The shape of libphonenumber-js's `build/parse.js` and `build/parsePhoneNumberWithError_.js`. */
interface ParseModule {
  default: (text: string, options: object | undefined, metadata: unknown) => unknown;
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
let spreadInstalled: boolean | undefined;

/** The file of libphonenumber-js's CommonJS build at `path`, from the library's own registry. */
function libraryModule<T>(path: string): Partial<T> | undefined {
  // The module's own `require`: the same module registry as the library's (Jest has its own).
  const root = dirname(require.resolve('libphonenumber-js/package.json'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path computed at run time
  return require(join(root, path)) as Partial<T> | undefined;
}

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
    const helper = libraryModule<MatchesEntirelyModule>('build/helpers/matchesEntirely.js');
    if (typeof helper?.default === 'function' && helper.default.length === 2) {
      helper.default = matchesEntirelyCached;
      installed = true;
    }
  } catch {
    // Another layout: keep the library as it is.
  }
  return installed;
}

/**
 * Makes libphonenumber-js copy a parse's options with the language's object spread
 * (docs/architecture.md#lead-validation-cost).
 *
 * Every `parsePhoneNumberFromString` goes through `parsePhoneNumberWithError_`, which calls
 * `parse(text, {...options, v2: true}, metadata)` with the options copied by Babel's
 * `_objectSpread` helper (own keys, symbols, a property definition each): about a quarter of
 * the cost of a phone. This replaces that module's export, which its callers in the library's
 * CommonJS build read at call time, by a function that builds the same object (the same own
 * enumerable properties, then `v2: true`) with `{...options, v2: true}` and calls the same
 * `parse`.
 *
 * Idempotent. When the library's layout is not the expected one (another version, or a
 * function that no longer passes `v2: true`), nothing is changed; `phone-patterns.spec.ts`
 * fails then.
 *
 * @returns whether the native spread is in place.
 */
export function spreadParseOptionsNatively(): boolean {
  if (spreadInstalled !== undefined) return spreadInstalled;
  spreadInstalled = false;
  try {
    const withError = libraryModule<ParseModule>('build/parsePhoneNumberWithError_.js');
    const parse = libraryModule<ParseModule>('build/parse.js')?.default;
    const original = withError?.default;
    if (
      withError !== undefined &&
      typeof parse === 'function' &&
      typeof original === 'function' &&
      original.length === 3 &&
      /_parse\["default"\]\)\(text, _objectSpread\(_objectSpread\(\{\}, options\), \{\}, \{\s*v2: true\s*\}\), metadata\)/.test(
        String(original),
      )
    ) {
      withError.default = function parsePhoneNumberWithError(text, options, metadata) {
        return parse(text, { ...options, v2: true }, metadata);
      };
      spreadInstalled = true;
    }
  } catch {
    // Another layout: keep the library as it is.
  }
  return spreadInstalled;
}
