import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { maskContacts, maskSampleRows } from '..';

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

/**
 * For an answer a route writes itself (a CSV download) or masks by its own rule: whether the
 * signed-in user sees phones and emails in full (docs/privacy.md#contact-details-by-role). Only
 * an admin does; anything else, no role included, is masked (fails closed).
 */
export function seesContactsInFull(role: string | undefined): boolean {
  return role === 'admin';
}

/**
 * A rejected row (or any answer) as `role` sees it: unchanged for an admin, through
 * `maskContacts` for anyone else (`submitted.phone`, `submitted.email`).
 */
export function contactsAsSeenBy<T>(role: string | undefined, value: T): T {
  return seesContactsInFull(role) ? value : (maskContacts(value) as T);
}

/**
 * A spreadsheet upload's sample rows as `role` sees them: unchanged for an admin; for anyone
 * else the columns `mapping` gives `phone` and `email` masked whole and phone-like or email
 * cells elsewhere masked (`maskSampleRows`).
 */
export function sampleRowsAsSeenBy(
  role: string | undefined,
  rows: string[][],
  mapping: Readonly<Record<string, number | undefined>>,
): string[][] {
  return seesContactsInFull(role) ? rows : maskSampleRows(rows, mapping);
}
