import { applyDecorators, Controller, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { IS_PUBLIC_KEY } from '../auth/public.decorator';

/** Where every dashboard API route lives (docs/dashboard.md). */
export const DASHBOARD_API_PREFIX = '/dashboard/api/';

/**
 * Who may use a dashboard API route (docs/dashboard.md#access-rules):
 * - `sign-in`: no session needed, only the CSRF rules with the fixed token `sign-in`
 *   (`POST /dashboard/api/session` alone);
 * - `any`: a valid session, of an admin or a viewer;
 * - `admin`: a valid session of an admin (a viewer gets 403).
 */
export type DashboardAccessLevel = 'sign-in' | 'any' | 'admin';

/** Metadata key of {@link DashboardAccess} on a handler (read by the OpenAPI document). */
export const DASHBOARD_ACCESS_KEY = 'dashboardAccess';

/** What a dashboard route carries in its Fastify route config (`request.routeOptions.config`). */
export interface DashboardRouteConfig {
  dashboard?: { access?: DashboardAccessLevel };
}

/**
 * Declares who may use a dashboard API route. Every route under `/dashboard/api/` must have it
 * on its method: the guards read it from the Fastify route config, a route without it stops
 * the application at start-up ({@link installDashboardRouteCheck}), and the authorisation test
 * (test/dashboard-access.e2e-spec.ts) reads it to know what to expect of each route.
 */
export const DashboardAccess = (access: DashboardAccessLevel): MethodDecorator =>
  applyDecorators(
    RouteConfig({ dashboard: { access } } satisfies DashboardRouteConfig),
    SetMetadata(DASHBOARD_ACCESS_KEY, access),
  );

/**
 * A controller of the dashboard API at `/dashboard/api/<path>`, outside the `/api/v1` prefix.
 * Its routes take no bearer token (the global bearer guard lets them through, as `@Public` on
 * the class does; the bearer hook only looks at `/api/v1/`): the dashboard guards
 * ({@link DashboardSessionGuard}, {@link DashboardCsrfGuard}, {@link DashboardRoleGuard}) check
 * the session, the CSRF rules and the role instead, on every route under `/dashboard/api/`.
 */
export const DashboardController = (path: string): ClassDecorator =>
  applyDecorators(
    Controller(`${DASHBOARD_API_PREFIX.slice(1)}${path}`),
    SetMetadata(IS_PUBLIC_KEY, true),
  );
