/**
 * How an endpoint's deliveries are signed (docs/webhooks.md#signing): `symmetric`, an
 * HMAC-SHA256 `v1,` signature with a shared `whsec_` secret (the default), or `asymmetric`, an
 * ed25519 `v1a,` signature whose `whpk_` public key receivers verify with.
 */
export const SIGNATURE_SCHEMES = ['symmetric', 'asymmetric'] as const;

/** One of {@link SIGNATURE_SCHEMES}. */
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/** The scheme of an endpoint created without one. */
export const DEFAULT_SIGNATURE_SCHEME: SignatureScheme = 'symmetric';

/** Whether `value` names a signature scheme. */
export function isSignatureScheme(value: unknown): value is SignatureScheme {
  return (SIGNATURE_SCHEMES as readonly unknown[]).includes(value);
}
