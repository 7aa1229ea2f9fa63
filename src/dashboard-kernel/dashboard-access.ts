import { applyDecorators, Controller, SetMetadata, UseGuards } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { IS_PUBLIC_KEY } from '../auth';
import { DashboardResourceGuard } from './dashboard.guards';
import { ownedParamsDeclared } from './owned-param';
import {
  DASHBOARD_API_PREFIX,
  type DashboardAccessLevel,
  type DashboardResourceRule,
  type DashboardRouteConfig,
} from './dashboard-route-config';

export {
  DASHBOARD_API_PREFIX,
  type DashboardAccessLevel,
  type DashboardResourceRule,
  type DashboardRouteConfig,
};

/** Metadata key of {@link DashboardAccess}'s level on a handler (read by the OpenAPI document). */
export const DASHBOARD_ACCESS_KEY = 'dashboardAccess';
/** Metadata key of {@link DashboardAccess}'s resource rules on a handler (`[]` when none). */
export const DASHBOARD_RESOURCES_KEY = 'dashboardResources';

/**
 * Declares who may use a dashboard API route, and which resources of the session's account its
 * path names (docs/dashboard.md#access-rules), e.g.
 * `@DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })`. Every route
 * under `/dashboard/api/` must have it on its method, with one rule per path parameter: the
 * guards read it from the Fastify route config, a route without it (or with a path parameter it
 * does not name) stops the application at start-up ({@link installDashboardRouteCheck}), and
 * the authorisation test (test/dashboard-access.e2e-spec.ts) reads it to know what to expect
 * of each route.
 *
 * @param access who may call the route.
 * @param resources the path parameters naming a resource, each checked by
 *   {@link DashboardResourceGuard}: a malformed id is the route's `400` (`404` for a UUID),
 *   another account's or a missing one `404 not_found`, before the route runs. The route reads
 *   each checked id with `@OwnedParam(param)`, typed `Owned<kind>`; an `@OwnedParam` of a
 *   parameter not declared here stops the application when the class is defined.
 */
export const DashboardAccess = (
  access: DashboardAccessLevel,
  ...resources: DashboardResourceRule[]
): MethodDecorator =>
  applyDecorators(
    RouteConfig({
      dashboard: resources.length > 0 ? { access, resources } : { access },
    } satisfies DashboardRouteConfig),
    SetMetadata(DASHBOARD_ACCESS_KEY, access),
    SetMetadata(DASHBOARD_RESOURCES_KEY, resources),
    ownedParamsDeclared(resources),
  );

/**
 * A controller of the dashboard API at `/dashboard/api/<path>`, outside the `/api/v1` prefix.
 * Its routes take no bearer token (the global bearer guard lets them through, as `@Public` on
 * the class does; the bearer hook only looks at `/api/v1/`): the dashboard guards
 * ({@link DashboardSessionGuard}, {@link DashboardCsrfGuard}, {@link DashboardRoleGuard},
 * {@link DashboardInputGuard}) check the session, the CSRF rules, the role and the query
 * instead, on every route under `/dashboard/api/`; then {@link DashboardResourceGuard}, put on
 * the class here (so it runs after those global guards), checks the resources each route
 * declares against the session's account.
 */
export const DashboardController = (path: string): ClassDecorator =>
  applyDecorators(
    Controller(`${DASHBOARD_API_PREFIX.slice(1)}${path}`),
    SetMetadata(IS_PUBLIC_KEY, true),
    UseGuards(DashboardResourceGuard),
  );
