/** Longest endpoint URL accepted, as typed and as normalised (characters). */
export const MAX_URL_LENGTH = 2048;

/** Longest endpoint description accepted (characters). */
export const MAX_DESCRIPTION_LENGTH = 500;

/** The bounds of an endpoint's most deliveries per second (docs/webhooks.md#throttling). */
export const THROTTLE_RATE_BOUNDS = { min: 1, max: 1000 } as const;

/** The bounds of an endpoint's most attempts in flight (docs/webhooks.md#throttling). */
export const THROTTLE_IN_FLIGHT_BOUNDS = { min: 1, max: 100 } as const;
