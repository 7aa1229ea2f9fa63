/** Shortest password accepted, in characters (docs/dashboard.md#users-and-roles). */
export const MIN_PASSWORD_LENGTH = 12;

/** Longest password accepted, in characters: bounds the work one sign-in can ask for. */
export const MAX_PASSWORD_LENGTH = 1024;
/** Longest email accepted, in characters (as for lead emails: docs/decisions.md#uploads). */
export const MAX_EMAIL_LENGTH = 320;
