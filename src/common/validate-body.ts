import { validateSync, ValidationError } from 'class-validator';

/**
 * Validates a parsed JSON object against a class-validator DTO without transforming values
 * (no implicit conversion: `"true"` stays a string and fails `@IsBoolean`).
 *
 * @param dtoClass the DTO whose decorators describe the shape.
 * @param body a JSON object (the HTTP layer has already rejected anything else).
 * @param forbidUnknown whether properties without decorators are problems.
 * @returns the DTO instance and the problems as readable sentences (empty when valid).
 */
export function validateBody<T extends object>(
  dtoClass: new () => T,
  body: Record<string, unknown>,
  forbidUnknown: boolean,
): { dto: T; problems: string[] } {
  // Keys that name Object.prototype members ("constructor", "toString", …) would shadow them
  // on the DTO and break class-validator; they are never fields of ours, so treat them as unknown.
  const dto = new dtoClass();
  const reserved: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key in Object.prototype) reserved.push(key);
    else (dto as Record<string, unknown>)[key] = value;
  }
  const errors = validateSync(dto, {
    whitelist: forbidUnknown,
    forbidNonWhitelisted: forbidUnknown,
    forbidUnknownValues: false,
    validationError: { target: false, value: false },
  });
  const problems = errors.flatMap((error) => describe(error));
  if (forbidUnknown) problems.unshift(...reserved.map((key) => `${key} is not a known field`));
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
