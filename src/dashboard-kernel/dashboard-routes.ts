import type { FastifyInstance } from 'fastify';
import { ACCOUNT_RESOURCE_KINDS } from '../account-access';
import {
  DASHBOARD_API_PREFIX,
  type DashboardAccessLevel,
  type DashboardResourceRule,
  type DashboardRouteConfig,
} from './dashboard-route-config';

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
  /** The resources its path names, as `@DashboardAccess` declares them (empty when none). */
  resources: readonly DashboardResourceRule[];
}

const registered = new WeakMap<FastifyInstance, DashboardRouteInfo[]>();

/** The names of a Fastify route pattern's path parameters (`:endpoint_id` → `endpoint_id`). */
export function pathParameters(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]);
}

/**
 * What is wrong with a dashboard route's declaration of the resources its path names
 * (docs/dashboard.md#access-rules): every path parameter must be declared as the id of a known
 * resource, once, and every declared parameter must be in the path.
 * @returns the problems as sentences, empty when there is none.
 */
export function resourceRuleProblems(
  url: string,
  resources: readonly DashboardResourceRule[],
): string[] {
  const parameters = pathParameters(url);
  const declared = resources.map((rule) => rule.param);
  return [
    ...parameters
      .filter((name) => !declared.includes(name))
      .map((name) => `path parameter ${name} names no resource`),
    ...resources
      .filter((rule) => !ACCOUNT_RESOURCE_KINDS.has(rule.resource))
      .map((rule) => `${String(rule.resource)} is not a resource an account owns`),
    ...declared
      .filter((name, index) => !parameters.includes(name) || declared.indexOf(name) !== index)
      .map((name) => `${name} is declared twice or is not a path parameter`),
  ];
}

/**
 * Fails closed on an undeclared dashboard route (docs/dashboard.md#access-rules): every route
 * registered under `/dashboard/api/` must declare its access with `@DashboardAccess`, and each
 * of its path parameters as the id of a resource (`@DashboardAccess('any', { resource:
 * 'endpoint', param: 'endpoint_id' })`), or the application does not start: a route cannot
 * take an id without the guard checking it against the session's account. Also keeps the list
 * of those routes, for the authorisation test ({@link dashboardRoutes}). Install before any
 * route is registered.
 * @throws Error at registration, naming the route and what its declaration lacks.
 */
export function installDashboardRouteCheck(fastify: FastifyInstance): void {
  const routes: DashboardRouteInfo[] = [];
  registered.set(fastify, routes);
  fastify.addHook('onRoute', (route) => {
    if (!route.url.startsWith(DASHBOARD_API_PREFIX)) return;
    const declaration = (route.config as DashboardRouteConfig | undefined)?.dashboard;
    const access = declaration?.access;
    const resources = declaration?.resources ?? [];
    const methods = [route.method].flat().map(String);
    const name = `Dashboard route ${methods.join(',')} ${route.url}`;
    if (!UNGUARDED_ROUTES.has(route.url)) {
      if (access === undefined) {
        throw new Error(
          `${name} declares no access: ` +
            'put @DashboardAccess(…) on its method (docs/dashboard.md#access-rules)',
        );
      }
      const problems = resourceRuleProblems(route.url, resources);
      if (problems.length > 0) {
        throw new Error(
          `${name} does not declare the resources its path names (${problems.join('; ')}): ` +
            "declare each with @DashboardAccess(access, { resource: …, param: '…' }) " +
            '(docs/dashboard.md#access-rules)',
        );
      }
    }
    for (const method of methods) routes.push({ method, url: route.url, access, resources });
  });
}

/** Every method and route registered under `/dashboard/api/` so far (HEAD included). */
export function dashboardRoutes(fastify: FastifyInstance): readonly DashboardRouteInfo[] {
  return registered.get(fastify) ?? [];
}
