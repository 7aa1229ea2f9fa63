import { Injectable, SetMetadata, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import { ApiError } from '../common/api-error';
import { pathPositiveInt } from '../common/ids';
import {
  MAX_UNKNOWN_FIELDS_NAMED,
  unknownFieldProblems,
  validateBody,
} from '../common/validate-body';
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

const documentedQueries = new WeakMap<object, ReadonlySet<string>>();

/**
 * The query parameters a route handler documents in the OpenAPI document: the names its
 * `@ApiQueries` (or any `@ApiQuery`) declares, read from the metadata the document is built
 * from, so that what a route accepts and what it documents cannot differ. Empty for a route
 * that documents none.
 * @param handler the route's method (`ExecutionContext.getHandler()`).
 */
export function documentedQueryNames(handler: object): ReadonlySet<string> {
  let names = documentedQueries.get(handler);
  if (!names) {
    const parameters = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, handler) ?? []) as Array<{
      in?: string;
      name?: string;
    }>;
    names = new Set(
      parameters.flatMap((parameter) =>
        parameter.in === 'query' && typeof parameter.name === 'string' ? [parameter.name] : [],
      ),
    );
    documentedQueries.set(handler, names);
  }
  return names;
}

/**
 * What is wrong with a dashboard request's query string, before the route reads it
 * (docs/dashboard.md#requests-and-answers): every parameter the route does not document
 * (`x is not a known field`: the first ten named, long names cut, the rest counted, as for a
 * body), then every documented one whose value holds a NUL character, which no PostgreSQL
 * `text` can take (`q must not contain a NUL character`). Types, repeats and values stay the
 * route's to check.
 *
 * @param query the parsed query string: each value a string, or an array of them when repeated.
 * @param known the names the route documents ({@link documentedQueryNames}).
 * @returns the problems as sentences, empty when there is none.
 */
export function queryProblems(
  query: Readonly<Record<string, unknown>>,
  known: ReadonlySet<string>,
): string[] {
  const names = Object.keys(query);
  const unknown = names.filter((name) => !known.has(name));
  const withNul = names.filter(
    (name) =>
      known.has(name) &&
      [query[name]].flat().some((value) => typeof value === 'string' && value.includes('\u0000')),
  );
  return [
    ...unknownFieldProblems(unknown.slice(0, MAX_UNKNOWN_FIELDS_NAMED), unknown.length),
    ...withNul.map((name) => `${name} must not contain a NUL character`),
  ];
}

const NUL_CHECKED_BY_ROUTE = 'dashboard:nul-checked-by-route';

/**
 * Top-level fields of a route's JSON body whose NUL characters the route's own validation
 * refuses, with the message its documentation gives (a custom header's names the header,
 * docs/webhooks.md#custom-headers): {@link DashboardInputGuard} leaves them to it. That
 * validation must refuse a NUL before anything reaches PostgreSQL.
 */
export const NulCheckedByRoute = (...fields: string[]): MethodDecorator =>
  SetMetadata(NUL_CHECKED_BY_ROUTE, fields);

/** The body fields a route marked with {@link NulCheckedByRoute}, or none. */
export function nulCheckedByRoute(handler: object): readonly string[] {
  return (Reflect.getMetadata(NUL_CHECKED_BY_ROUTE, handler) as string[] | undefined) ?? [];
}

/** How many NUL problems of a body one 422 message names. */
const MAX_NUL_PROBLEMS = 10;

/**
 * Where a dashboard request's JSON body holds a NUL character, which no PostgreSQL `text` or
 * `jsonb` value can hold (docs/dashboard.md#requests-and-answers): each string value
 * (`description must not contain a NUL character`, `tags[1] must …`, `mapping.phone must …`)
 * and each object whose field names hold one (`mapping has a field name with a NUL character`),
 * at most ten, in body order. Iterative: a body is at most 32 levels deep, but no stack is
 * spent on it either way.
 *
 * @param body the parsed body; anything but an object or array (no body, a file stream) has none.
 * @param leftOut top-level fields not looked at ({@link NulCheckedByRoute}).
 * @returns the problems as sentences, empty when there is none.
 */
export function bodyNulProblems(body: unknown, leftOut: readonly string[] = []): string[] {
  const problems: string[] = [];
  if (body === null || typeof body !== 'object' || !(Array.isArray(body) || isPlain(body))) {
    return problems;
  }
  const stack: Array<[value: unknown, path: string]> = [[body, '']];
  while (stack.length > 0 && problems.length < MAX_NUL_PROBLEMS) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) problems.push(`${path} must not contain a NUL character`);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [`${path}[${index}]`, item])
      : Object.entries(value)
          .filter(([key]) => path !== '' || !leftOut.includes(key))
          .map(([key, item]) => [path === '' ? key : `${path}.${key}`, item]);
    if (!Array.isArray(value) && Object.keys(value).some((key) => key.includes('\u0000'))) {
      problems.push(`${path === '' ? 'the body' : path} has a field name with a NUL character`);
    }
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i][1], entries[i][0]]);
  }
  return problems.slice(0, MAX_NUL_PROBLEMS);
}

function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
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
