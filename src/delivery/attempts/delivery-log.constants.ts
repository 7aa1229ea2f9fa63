/** Rows per page of the delivery log when the caller names no `limit`. */
export const DEFAULT_LOG_LIMIT = 50;

/** The largest `limit` of a delivery log page. */
export const MAX_LOG_LIMIT = 100;

/** The `outcome` filter values: `succeeded` (a 2xx in time) and `failed` (anything else). */
export const LOG_OUTCOMES = ['succeeded', 'failed'] as const;
