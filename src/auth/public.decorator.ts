import { applyDecorators, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';

export const IS_PUBLIC_KEY = 'isPublic';

/** Fastify route config of a route reachable without a bearer token. */
export const PUBLIC_ROUTE_CONFIG = { public: true } as const;

/**
 * Marks a route as reachable without a bearer token (the token exchange, health checks). On a
 * method it also tells the `onRequest` authentication hook to let the request through; on a
 * class only the Nest guard sees it, so put it on each method of routes under `/api/v1`.
 */
export const Public = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(IS_PUBLIC_KEY, true), RouteConfig(PUBLIC_ROUTE_CONFIG));
