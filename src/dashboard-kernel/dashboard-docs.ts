import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiParam, ApiQuery, type ApiQueryOptions } from '@nestjs/swagger';

/** The `X-CSRF-Token` header of every state-changing dashboard operation (OpenAPI). */
export const ApiCsrfHeader = (): MethodDecorator =>
  applyDecorators(
    ApiHeader({
      name: 'X-CSRF-Token',
      required: true,
      description: 'The session’s `csrf_token` (docs: cross-site request forgery)',
    }),
  );

/** A positive integer path id (OpenAPI); see {@link DashboardIdPipe}. */
export const ApiIdParam = (name: string, description: string): MethodDecorator & ClassDecorator =>
  applyDecorators(
    ApiParam({
      name,
      description: `${description} (positive integer)`,
      schema: { type: 'integer', minimum: 1 },
    }),
  );

/**
 * Query parameters (OpenAPI), documented in the order given. They are also the only query
 * parameters the route accepts: `DashboardInputGuard` answers any other with `422`
 * (docs/dashboard.md#requests-and-answers), so a route that reads a parameter must declare it
 * here.
 */
export const ApiQueries = (queries: ApiQueryOptions[]): MethodDecorator =>
  applyDecorators(...queries.map((query) => ApiQuery(query)));
