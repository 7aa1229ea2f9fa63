/**
 * Ids whose account has been checked once, where the request came in
 * (docs/architecture.md#account-access).
 *
 * A dashboard route names resources by id in its path; `DashboardResourceGuard` proves, in one
 * query, that each belongs to the session's account and hands the route the id branded
 * `Owned<kind>`. A domain service that acts on "a resource of the caller's account" takes an
 * `Owned<kind>` id and does not check the account again: the brand is the proof, and a plain
 * number does not type-check in its place.
 *
 * Callers that may act on every account's resources (the operator's CLI, the service's own
 * jobs, tests) brand an id with {@link ownedByOperator}: a visible, greppable statement that no
 * account check applies.
 */
declare const OWNED: unique symbol;

/**
 * The id type of each kind of resource a route may name (the kinds of `ACCOUNT_RESOURCES` in
 * `src/account-access/`): integers for `integer` and `bigint` ids (a bigint id is read as a
 * JavaScript number, exact below 2^53), lower-case UUID strings for imports.
 */
export interface OwnedIdTypes {
  campaign: number;
  endpoint: number;
  attempt: number;
  delivery: number;
  recovery: number;
  lead: number;
  import: string;
  'spreadsheet-import': string;
  'api-key': number;
}

/** A kind of resource an account owns: `campaign`, `endpoint`, `import`, `api-key`, … */
export type OwnedKind = keyof OwnedIdTypes;

/**
 * An id of kind `K` known to belong to the account acting (or to be acted on by the operator).
 * At run time it is the plain id; the brand exists only for the type checker.
 */
export type Owned<K extends OwnedKind> = OwnedIdTypes[K] & { readonly [OWNED]: K };

/**
 * Brands ids the dashboard's resource guard has just checked. Only the guard's hand-over
 * (`@OwnedParam`) calls it; anything else uses {@link ownedByOperator}.
 * @internal
 */
export function ownedAfterCheck<K extends OwnedKind>(_kind: K, id: OwnedIdTypes[K]): Owned<K> {
  return id as Owned<K>;
}

/**
 * Brands an id for a caller that may act on any account's resources: the operator's CLI, the
 * service's own jobs and tests. Never call it with an id from a dashboard request.
 */
export function ownedByOperator<K extends OwnedKind>(_kind: K, id: OwnedIdTypes[K]): Owned<K> {
  return id as Owned<K>;
}

/**
 * Brands an id read from the row of a resource already owned, which therefore belongs to the
 * same account: the import a lead of the account came from, the campaign of an owned endpoint.
 * @param _owner the owned resource whose row held the id: the proof, kept in the call.
 */
export function ownedThrough<K extends OwnedKind>(
  _owner: Owned<OwnedKind>,
  kind: K,
  id: OwnedIdTypes[K],
): Owned<K> {
  return id as Owned<K>;
}
