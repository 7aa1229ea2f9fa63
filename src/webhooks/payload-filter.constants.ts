/**
 * The limits of an endpoint's payload filter (docs/webhooks.md#payload-filters). Every number
 * here is quoted in that section; change both together.
 */

/** Longest filter accepted, in characters (UTF-16 code units, as typed). */
export const MAX_FILTER_LENGTH = 2000;

/**
 * The parser's structural limits: nodes of the syntax tree, nesting depth, items of one list
 * literal, entries of one map literal, arguments of one call. Past any of them the filter is
 * refused on save.
 */
export const FILTER_PARSE_LIMITS = Object.freeze({
  maxAstNodes: 300,
  maxDepth: 24,
  maxListElements: 100,
  maxMapEntries: 50,
  maxCallArguments: 8,
});

/**
 * The most a filter may cost by the static estimate made on save (docs/webhooks.md#costs-and-limits):
 * one unit per node evaluated, a comprehension's body once per item of its list, a regular
 * expression 50 units plus 2 per character of its pattern, a string function 5.
 */
export const MAX_FILTER_COST = 100_000;

/**
 * How many items the cost estimate assumes a list or map of the event holds, by field name of
 * `data`: `lead_ids` (an upload's ids, up to 10,000) and `tags` (up to 50); any other list or
 * map counts 1,000.
 */
export const FILTER_COLLECTION_SIZES: Readonly<Record<string, number>> = Object.freeze({
  lead_ids: 10_000,
  tags: 50,
});

/** Items assumed of a list or map {@link FILTER_COLLECTION_SIZES} does not name. */
export const FILTER_DEFAULT_COLLECTION_SIZE = 1000;

/** Longest regular expression pattern accepted in `matches()`, in characters. */
export const MAX_FILTER_REGEX_LENGTH = 256;

/**
 * The run-time budget of one endpoint's filter while one batch of events is recorded (an
 * upload's, an `event emit`'s): this many ms, plus {@link FILTER_BUDGET_PER_EVENT_MS} per event
 * of the batch. Past it the filter is not evaluated again in that batch: each remaining event
 * counts as an evaluation error, so no match (docs/webhooks.md#when-a-filter-fails).
 */
export const FILTER_BUDGET_BASE_MS = 25;

/** See {@link FILTER_BUDGET_BASE_MS}. */
export const FILTER_BUDGET_PER_EVENT_MS = 0.05;

/** How many of an endpoint's most recent events a filter preview evaluates. */
export const FILTER_PREVIEW_EVENTS = 50;
