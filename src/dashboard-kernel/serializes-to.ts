/**
 * What a route returns for the response DTO `Dto` (docs/dashboard.md#requests-and-answers):
 * the DTO's shape, where the `Times` fields (`date-time` strings on the wire) may still be
 * `Date`s, which the JSON serialiser writes as ISO 8601 strings (`Date.prototype.toJSON`). A
 * route declares the documented DTO as its answer while returning a domain view whose times
 * are `Date`s; a field missing, or of a type the DTO does not allow, does not compile.
 *
 * @example `redeliver(…): Promise<SerializesTo<DeliveryAttemptResultDto, 'attempted_at'>>`
 */
export type SerializesTo<Dto, Times extends keyof Dto = never> = Omit<Dto, Times> & {
  [K in Times]: Dto[K] | Date;
};
