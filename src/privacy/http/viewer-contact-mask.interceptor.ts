import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { maskContacts } from '..';

/**
 * Masks phones and emails in a dashboard answer unless the signed-in user is an admin
 * (docs/privacy.md#contact-details-by-role): put on the routes that show leads, rejected rows and
 * attempt bodies. Searching still runs on the full value; only the answer is masked. Fails
 * closed: a request without a session is masked.
 */
@Injectable()
export class ViewerContactMask implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context
      .switchToHttp()
      .getRequest<{ dashboardSession?: { user?: { role?: string } } }>();
    if (request.dashboardSession?.user?.role === 'admin') return next.handle();
    return next.handle().pipe(map((body: unknown) => maskContacts(body)));
  }
}
