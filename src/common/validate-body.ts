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
  const dto = Object.assign(new dtoClass(), body);
  const errors = validateSync(dto, {
    whitelist: forbidUnknown,
    forbidNonWhitelisted: forbidUnknown,
    forbidUnknownValues: false,
    validationError: { target: false, value: false },
  });
  return { dto, problems: [...new Set(errors.flatMap((error) => describe(error)))] };
}

function describe(error: ValidationError): string[] {
  const constraints = error.constraints ?? {};
  const own = Object.entries(constraints).map(([name, message]) =>
    name === 'whitelistValidation' ? `${error.property} is not a known field` : message,
  );
  const nested = (error.children ?? []).flatMap((child) => describe(child));
  return [...own, ...nested];
}
