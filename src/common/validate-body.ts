import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';

/** How many unknown field names one 422 message names before counting the rest. */
export const MAX_UNKNOWN_FIELDS_NAMED = 10;
/** Longest field name (in code points) quoted in a message; longer names are cut with `…`. */
const MAX_FIELD_NAME_SHOWN = 64;

const knownPropertiesCache = new WeakMap<new () => object, ReadonlySet<string>>();

/** Property names that carry class-validator metadata on `dtoClass` (what `whitelist` allows). */
function knownProperties(dtoClass: new () => object): ReadonlySet<string> {
  let known = knownPropertiesCache.get(dtoClass);
  if (!known) {
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(
      dtoClass,
      undefined as unknown as string,
      false,
      false,
    );
    known = new Set(metadatas.map((metadata) => metadata.propertyName));
    knownPropertiesCache.set(dtoClass, known);
  }
  return known;
}

/** A field name as a message quotes it: at most {@link MAX_FIELD_NAME_SHOWN} code points. */
function shownFieldName(key: string): string {
  if (key.length <= MAX_FIELD_NAME_SHOWN) return key;
  const head = Array.from(key.slice(0, 2 * MAX_FIELD_NAME_SHOWN))
    .slice(0, MAX_FIELD_NAME_SHOWN)
    .join('');
  return head.length < key.length ? `${head}…` : head;
}

/**
 * The problems for unknown top-level fields: the first {@link MAX_UNKNOWN_FIELDS_NAMED} named
 * (`x is not a known field`, long names cut), then one `and N more unknown fields`.
 *
 * @param named the first unknown field names, in body order (only the first ten are used).
 * @param total how many unknown fields the body has in all.
 */
export function unknownFieldProblems(named: readonly string[], total: number): string[] {
  const problems = named
    .slice(0, MAX_UNKNOWN_FIELDS_NAMED)
    .map((key) => `${shownFieldName(key)} is not a known field`);
  const rest = total - problems.length;
  if (rest > 0) problems.push(`and ${rest.toLocaleString('en-US')} more unknown fields`);
  return problems;
}

/**
 * Validates a parsed JSON object against a class-validator DTO without transforming values
 * (no implicit conversion: `"true"` stays a string and fails `@IsBoolean`).
 *
 * @param dtoClass the DTO whose decorators describe the shape.
 * @param body a JSON object (the HTTP layer has already rejected anything else).
 * Unknown top-level fields are found in one pass over the body's keys before class-validator
 * runs and never reach it, so a body with a million unknown keys costs one `Object.keys`, and
 * its message names ten of them and counts the rest ({@link unknownFieldProblems}).
 *
 * @param forbidUnknown whether properties without decorators are problems (listed first).
 * @returns the DTO instance and the problems as readable sentences (empty when valid).
 */
export function validateBody<T extends object>(
  dtoClass: new () => T,
  body: Record<string, unknown>,
  forbidUnknown: boolean,
): { dto: T; problems: string[] } {
  // Keys that name Object.prototype members ("constructor", "toString", …) would shadow them
  // on the DTO and break class-validator; they are never fields of ours, so treat them as unknown.
  const known = forbidUnknown ? knownProperties(dtoClass) : null;
  const dto = new dtoClass();
  const unknownNamed: string[] = [];
  let unknownCount = 0;
  for (const key of Object.keys(body)) {
    if (known ? !known.has(key) : key in Object.prototype) {
      unknownCount++;
      if (unknownNamed.length < MAX_UNKNOWN_FIELDS_NAMED) unknownNamed.push(key);
    } else {
      (dto as Record<string, unknown>)[key] = body[key];
    }
  }
  const errors = validateSync(dto, {
    whitelist: forbidUnknown,
    forbidNonWhitelisted: forbidUnknown,
    forbidUnknownValues: false,
    validationError: { target: false, value: false },
  });
  const problems = errors.flatMap((error) => describe(error));
  if (forbidUnknown) problems.unshift(...unknownFieldProblems(unknownNamed, unknownCount));
  return { dto, problems: [...new Set(problems)] };
}

function describe(error: ValidationError): string[] {
  const constraints = error.constraints ?? {};
  const own = Object.entries(constraints).map(([name, message]) =>
    name === 'whitelistValidation' ? `${error.property} is not a known field` : message,
  );
  const nested = (error.children ?? []).flatMap((child) => describe(child));
  return [...own, ...nested];
}
