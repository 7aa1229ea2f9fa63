/**
 * The nonce the service put in `<meta property="csp-nonce">` for this page (a fresh one per
 * response, allowed by its Content-Security-Policy's `style-src`): Mantine adds it to the
 * `<style>` tags it creates at run time. Browsers hide a `nonce` attribute's value once the
 * policy applied, but keep the element's `nonce` property.
 */
export function cspNonce(doc: Document = document): string | undefined {
  const meta = doc.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]');
  if (!meta) return undefined;
  return meta.nonce || meta.getAttribute('nonce') || undefined;
}
