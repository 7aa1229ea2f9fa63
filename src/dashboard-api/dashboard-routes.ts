import type { FastifyInstance } from 'fastify';
import {
  DASHBOARD_API_PREFIX,
  type DashboardAccessLevel,
  type DashboardRouteConfig,
} from './dashboard-access';

/** The dashboard API's OpenAPI document: public by design, and not a Nest route. */
export const DASHBOARD_OPENAPI_JSON_PATH = '/dashboard/api/docs-json';

/** Routes under `/dashboard/api/` that are not subject to the session rules: the document only. */
const UNGUARDED_ROUTES: ReadonlySet<string> = new Set([DASHBOARD_OPENAPI_JSON_PATH]);

/** One method of a route under `/dashboard/api/`, as registered with Fastify. */
export interface DashboardRouteInfo {
  method: string;
  /** The route's pattern, e.g. `/dashboard/api/endpoints/:endpoint_id`. */
  url: string;
  /** What `@DashboardAccess` declares; undefined only for the unguarded document. */
  access: DashboardAccessLevel | undefined;
}

const registered = new WeakMap<FastifyInstance, DashboardRouteInfo[]>();

/**
 * Fails closed on an undeclared dashboard route (docs/dashboard.md#access-rules): every route
 * registered under `/dashboard/api/` must declare its access with `@DashboardAccess`, or the
 * application does not start. Also keeps the list of those routes, for the authorisation test
 * ({@link dashboardRoutes}). Install before any route is registered.
 */
export function installDashboardRouteCheck(fastify: FastifyInstance): void {
  const routes: DashboardRouteInfo[] = [];
  registered.set(fastify, routes);
  fastify.addHook('onRoute', (route) => {
    if (!route.url.startsWith(DASHBOARD_API_PREFIX)) return;
    const access = (route.config as DashboardRouteConfig | undefined)?.dashboard?.access;
    const methods = [route.method].flat().map(String);
    if (access === undefined && !UNGUARDED_ROUTES.has(route.url)) {
      throw new Error(
        `Dashboard route ${methods.join(',')} ${route.url} declares no access: ` +
          'put @DashboardAccess(…) on its method (docs/dashboard.md#access-rules)',
      );
    }
    for (const method of methods) routes.push({ method, url: route.url, access });
  });
}

/** Every method and route registered under `/dashboard/api/` so far (HEAD included). */
export function dashboardRoutes(fastify: FastifyInstance): readonly DashboardRouteInfo[] {
  return registered.get(fastify) ?? [];
}
