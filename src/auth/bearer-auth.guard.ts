import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { IS_PUBLIC_KEY } from './public.decorator';
import type { AuthPrincipal } from './auth-principal';

/**
 * The one global bearer guard (docs/api.md#authentication): every route needs a valid token unless marked
 * {@link Public}. The token itself is verified earlier, in Fastify's `onRequest` hook
 * (`installBearerAuthentication`), before the body is read; this guard makes sure no route
 * is reached without its principal, whatever the route's path.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthPrincipal }>();
    if (!request.user) {
      throw ApiError.unauthorized(
        'A bearer token is required: Authorization: Bearer <access_token>',
      );
    }
    return true;
  }
}
