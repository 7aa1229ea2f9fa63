/**
 * The fixed prefixes of the secrets the service issues (docs/security.md): secret scanners
 * recognise leaked ones, and the log redaction (`logging.ts`) recognises them in any field.
 * The modules that make the secrets import them from here, so `common/` depends on no feature.
 */

/** Prefix of every API key (docs/api.md#authentication). */
export const API_KEY_PREFIX = 'capi_';

/** Prefix of a Standard Webhooks signing secret (docs/webhooks.md). */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/**
 * Prefix of a Standard Webhooks ed25519 secret key (docs/webhooks.md#asymmetric-signatures):
 * `whsk_` + base64 of the 32-byte seed. Never leaves the service.
 */
export const SIGNING_KEY_PREFIX = 'whsk_';

/**
 * Prefix of a Standard Webhooks ed25519 public key (docs/webhooks.md#asymmetric-signatures):
 * `whpk_` + base64 of the raw 32-byte key. Not secret: shown on the endpoint.
 */
export const PUBLIC_KEY_PREFIX = 'whpk_';
