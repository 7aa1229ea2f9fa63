/**
 * The fixed prefixes of the secrets the service issues (docs/security.md): secret scanners
 * recognise leaked ones, and the log redaction (`logging.ts`) recognises them in any field.
 * The modules that make the secrets import them from here, so `common/` depends on no feature.
 */

/** Prefix of every API key (docs/api.md#authentication). */
export const API_KEY_PREFIX = 'capi_';

/** Prefix of a Standard Webhooks signing secret (docs/webhooks.md). */
export const SIGNING_SECRET_PREFIX = 'whsec_';
