import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ResourceRef } from '../account-access';
import { ownedAfterCheck, type Owned, type OwnedIdTypes, type OwnedKind } from '../common/owned-id';
import { dashboardResourcesOf, type DashboardRequest } from './dashboard-request';
import type { DashboardResourceRule } from './dashboard-route-config';

/**
 * The ids `DashboardResourceGuard` has checked, per request: path parameter → resource and id
 * (as the route's pipe reads it: an integer, or a lower-case UUID).
 */
const checked = new WeakMap<object, ReadonlyMap<string, ResourceRef>>();

/** Metadata key, on a route handler, of the path parameters its `@OwnedParam`s read. */
const OWNED_PARAMS_KEY = 'dashboardOwnedParams';

/**
 * The guard's hand-over (docs/architecture.md#account-access): records on `request` the ids
 * that `AccountAccessService.requireAll` has just proved to be the session's account's, for
 * {@link OwnedParam} to hand to the route. Only `DashboardResourceGuard` calls it, after the
 * check passed.
 * @param rules the route's `@DashboardAccess` rules, one per ref, in the same order.
 */
export function handOverCheckedIds(
  request: object,
  rules: readonly DashboardResourceRule[],
  refs: readonly ResourceRef[],
): void {
  checked.set(request, new Map(rules.map((rule, index) => [rule.param, refs[index]])));
}

function undeclaredMessage(param: string, where: string): string {
  return (
    `@OwnedParam('${param}') on ${where}: the route's @DashboardAccess declares no resource ` +
    `in path parameter ${param}; declare it, e.g. @DashboardAccess('any', { resource: …, ` +
    `param: '${param}' }) (docs/architecture.md#account-access)`
  );
}

/**
 * The checked id of path parameter `param` of a dashboard request, branded `Owned<kind>` with
 * the kind the route declares for it.
 * @throws Error (a programming error, answered `500`) when the route declares no resource in
 *   `param`, or when the resource guard has not checked it.
 */
export function ownedParamOf(request: DashboardRequest, param: string): Owned<OwnedKind> {
  const rule = dashboardResourcesOf(request).find((r) => r.param === param);
  if (!rule) {
    throw new Error(undeclaredMessage(param, `${request.method} ${request.routeOptions?.url}`));
  }
  const ref = checked.get(request)?.get(param);
  if (!ref || ref.resource !== rule.resource) {
    throw new Error(
      `@OwnedParam('${param}'): DashboardResourceGuard has not checked this request's ${param} ` +
        '(is the controller declared with @DashboardController?)',
    );
  }
  return ownedAfterCheck(rule.resource, ref.id as OwnedIdTypes[typeof rule.resource]);
}

const ownedParam = createParamDecorator((param: string, context: ExecutionContext) =>
  ownedParamOf(context.switchToHttp().getRequest<DashboardRequest>(), param),
);

/**
 * The id in path parameter `param`, as `DashboardResourceGuard` checked it against the
 * session's account (docs/architecture.md#account-access), typed `Owned<kind>`, e.g.
 * `@OwnedParam('endpoint_id') id: Owned<'endpoint'>`: the way a dashboard route passes a
 * resource of the caller's account to a domain service. The route must declare the parameter
 * with `@DashboardAccess(level, { resource, param })`: one that does not stops the application
 * when the class is defined ({@link ownedParamsDeclared}), and, should a handler escape that,
 * its call fails with a `500` naming the parameter ({@link ownedParamOf}).
 */
export const OwnedParam =
  (param: string): ParameterDecorator =>
  (target, key, index) => {
    if (key !== undefined) {
      const handler = (target as Record<string | symbol, object>)[key];
      const params = (Reflect.getMetadata(OWNED_PARAMS_KEY, handler) ?? []) as string[];
      Reflect.defineMetadata(OWNED_PARAMS_KEY, [...params, param], handler);
    }
    ownedParam(param)(target, key, index);
  };

/**
 * Checks, when `@DashboardAccess` decorates a handler (its `@OwnedParam`s have been applied
 * already), that every parameter an `@OwnedParam` reads is declared among `resources`.
 * @throws Error naming the handler and the parameter otherwise: the application does not load.
 */
export const ownedParamsDeclared =
  (resources: readonly DashboardResourceRule[]): MethodDecorator =>
  (target, key, descriptor) => {
    const handler = descriptor.value as object | undefined;
    if (handler === undefined) return;
    const params = (Reflect.getMetadata(OWNED_PARAMS_KEY, handler) ?? []) as string[];
    const missing = params.find((param) => !resources.some((rule) => rule.param === param));
    if (missing !== undefined) {
      throw new Error(undeclaredMessage(missing, `${target.constructor.name}.${String(key)}`));
    }
  };
