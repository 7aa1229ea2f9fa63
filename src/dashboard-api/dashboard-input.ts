import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { pathPositiveInt } from '../common/ids';
import { validateBody } from '../common/validate-body';
import { NotFoundError } from '../common/domain-error';

/**
 * A path id of the dashboard API (`:campaign_id`, `:endpoint_id`, …), read as the public API
 * reads its path ids (docs/api.md#errors): decimal digits without sign or leading zero, else
 * `400 bad_request` naming the parameter, before anything is looked up. A well-formed id that
 * names nothing of the session's account is the route's `404` (docs/dashboard.md#access-rules).
 */
@Injectable()
export class DashboardIdPipe implements PipeTransform<string, number> {
  transform(value: string, metadata: ArgumentMetadata): number {
    const id = pathPositiveInt(value);
    if (id === null) {
      throw ApiError.badRequest(`${metadata.data ?? 'id'} must be a positive integer`);
    }
    return id;
  }
}

/**
 * Checks a JSON body or a query string against a class-validator DTO (docs/dashboard.md#routes):
 * types only, no conversion, unknown fields refused; `422 validation_failed` naming every
 * problem. Values (URL rules, event types, lengths…) are the domain services' to check.
 */
export function checkedInput<T extends object>(
  dtoClass: new () => T,
  input: Record<string, unknown> | undefined,
): T {
  const { dto, problems } = validateBody(dtoClass, input ?? {}, true);
  if (problems.length > 0) throw ApiError.validationFailed(problems);
  return dto;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID path parameter, lower-cased; anything else names nothing (`404`, like an id that
 * does not exist).
 * @param what the resource, for the message (`import`, `spreadsheet import`).
 * @throws NotFoundError for a value that is not a UUID.
 */
export function uuidParam(value: string, what: string): string {
  if (!UUID.test(value)) throw new NotFoundError(`${what} ${value.slice(0, 64)} does not exist`);
  return value.toLowerCase();
}
