import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ApiError } from '../common/api-error';
import { isDatabaseUnavailableError } from '../database/database-errors';
import { IS_PUBLIC_KEY } from './public.decorator';
import type { AuthPrincipal } from './auth-principal';

/**
 * The one global bearer guard (spec 5): every route needs a valid token unless marked
 * {@link Public}. Any failure is 401 `unauthorized` with `WWW-Authenticate: Bearer`; a database
 * outage while checking the key propagates (503), it is not an authentication failure.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    return isPublic ? true : this.authenticate(context);
  }

  private async authenticate(context: ExecutionContext): Promise<boolean> {
    try {
      return (await super.canActivate(context)) as boolean;
    } catch (error) {
      throw asAuthenticationError(error);
    }
  }

  override handleRequest<TUser = AuthPrincipal>(
    err: unknown,
    user: TUser | false,
    info: unknown,
  ): TUser {
    if (err) throw asAuthenticationError(err);
    if (!user) throw ApiError.unauthorized(describeFailure(info));
    return user;
  }
}

/**
 * Our own errors and database outages keep their meaning; anything else thrown while
 * verifying a token (e.g. jsonwebtoken failing on a signed payload that is not an object)
 * is a bad token: 401, never 500.
 */
function asAuthenticationError(error: unknown): unknown {
  return error instanceof ApiError || isDatabaseUnavailableError(error)
    ? error
    : ApiError.unauthorized('The bearer token is invalid');
}

function describeFailure(info: unknown): string {
  const name = (info as { name?: string } | undefined)?.name;
  if (name === 'TokenExpiredError')
    return 'The bearer token has expired; exchange the API key again';
  if (name === 'JsonWebTokenError' || name === 'NotBeforeError')
    return 'The bearer token is invalid';
  return 'A bearer token is required: Authorization: Bearer <access_token>';
}
