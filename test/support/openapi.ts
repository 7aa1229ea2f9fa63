import OpenAPIResponseValidator from 'openapi-response-validator';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { Response } from 'supertest';

type Method = 'get' | 'post' | 'patch';

/**
 * Asserts that a real response is one the OpenAPI document allows for `method` `path`: its
 * status is documented and its body matches that status's schema (closed schemas, so no
 * undocumented field passes). Uses openapi-response-validator.
 */
export function expectToMatchOpenApi(
  document: OpenAPIObject,
  method: Method,
  path: string,
  res: Response,
): void {
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the OpenAPI document`);
  const documented = Object.keys(operation.responses);
  if (!documented.includes(String(res.status))) {
    throw new Error(
      `${method.toUpperCase()} ${path} answered ${res.status}, which the document does not list (${documented.join(', ')})`,
    );
  }
  const validator = new OpenAPIResponseValidator({
    responses: operation.responses as never,
    components: document.components as never,
  });
  const errors = validator.validateResponse(res.status, res.body);
  if (errors)
    throw new Error(
      `${method.toUpperCase()} ${path} ${res.status} does not match the document: ${JSON.stringify(errors.errors)}\nbody: ${JSON.stringify(res.body)}`,
    );
}
