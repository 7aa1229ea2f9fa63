import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, Observable, of, throwError } from 'rxjs';
import type { AuthPrincipal } from '../auth';
import { ApiError } from '../common/api-error';
import { IdempotencyService } from './idempotency.service';

/** The request's claimed idempotency key, for the handler to complete in its transaction. */
export type IdempotentRequest = FastifyRequest & { user?: AuthPrincipal; idempotencyKey?: string };

/**
 * `Idempotency-Key` on `POST /leads/upload` (docs/api.md#idempotent-retries). Runs after the guards (the key is
 * scoped to the caller's API key) and before validation. A retry with the same key and body
 * gets the stored response with `Idempotent-Replayed: true`; a different body, or a retry
 * while the first still runs, gets 409 (the service's `IdempotencyConflictError`, mapped by the
 * global filter). A request that fails frees its key. Only accepted uploads are stored: a
 * rejected request is rejected again by the same checks.
 *
 * @throws ApiError 400 `bad_request` when the header is not 1 to 255 characters (or has NUL).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<IdempotentRequest>();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return next.handle();
    if (
      typeof header !== 'string' ||
      header.length < 1 ||
      header.length > 255 ||
      header.includes('\u0000')
    ) {
      throw ApiError.badRequest('Idempotency-Key must be 1 to 255 characters');
    }
    const apiKeyId = request.user!.apiKeyId;
    const claim = await this.idempotency.claim(
      apiKeyId,
      header,
      IdempotencyService.hashBody(request.body),
    );
    if (claim.kind === 'replay') {
      const reply = context.switchToHttp().getResponse<FastifyReply>();
      void reply.status(claim.status).header('Idempotent-Replayed', 'true');
      return of(JSON.parse(claim.body) as unknown);
    }
    request.idempotencyKey = header;
    return next
      .handle()
      .pipe(
        catchError((error: unknown) =>
          from(this.idempotency.release(apiKeyId, header)).pipe(
            mergeMap(() => throwError(() => error)),
          ),
        ),
      );
  }
}
