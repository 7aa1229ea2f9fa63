/** Leads per search page when the caller names no `limit`. */
export const DEFAULT_SEARCH_LIMIT = 25;

/** The largest `limit` of a search page. */
export const MAX_SEARCH_LIMIT = 100;

/** The longest `q`, in code points: an email's limit (names are at most 255 + 1 + 255). */
export const MAX_SEARCH_TEXT = 320;

/** What a search matches: the whole phone, an email prefix, or a name prefix. */
export const SEARCH_FIELDS = ['phone', 'email', 'name'] as const;

/** One of {@link SEARCH_FIELDS}. */
export type SearchField = (typeof SEARCH_FIELDS)[number];
