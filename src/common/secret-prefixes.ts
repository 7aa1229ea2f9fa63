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

/**
 * Prefix of a portal link's secret (docs/security.md#embedded-portal): `cpl_` + 32 random bytes
 * in base64url. It travels only in a URL fragment and is exchanged once.
 */
export const PORTAL_LINK_SECRET_PREFIX = 'cpl_';

/**
 * Prefix of an embedded portal session's token (docs/security.md#embedded-portal): `cps_` + 32
 * random bytes in base64url, held only in the portal page's memory.
 */
export const PORTAL_SESSION_TOKEN_PREFIX = 'cps_';
