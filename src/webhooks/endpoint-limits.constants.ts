/** Longest endpoint URL accepted, as typed and as normalised (characters). */
export const MAX_URL_LENGTH = 2048;

/** Longest endpoint description accepted (characters). */
export const MAX_DESCRIPTION_LENGTH = 500;
