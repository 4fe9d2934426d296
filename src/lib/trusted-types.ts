/**
 * Trusted Types (the CSP's `require-trusted-types-for 'script'`, docs/security.md): the browser refuses every
 * string-to-HTML and string-to-script sink (innerHTML, script text, script URLs) unless a policy allows it, so no
 * tensor name or metadata value can ever be turned into markup or code, whatever a future component does.
 * The app needs exactly one such sink: `new Worker(url)` for its workers, same-origin assets. This default
 * policy allows same-origin script URLs and nothing else: no HTML, no script text, no other origin.
 * It must be installed before the first worker is created; main.tsx imports it first.
 */
interface TrustedTypePolicyFactory {
  createPolicy(name: string, rules: { createScriptURL?: (input: string) => string }): unknown;
}

export function allowSameOriginScriptUrl(input: string, base: string, origin: string): string {
  const url = new URL(input, base);
  if (url.origin !== origin) {
    throw new TypeError(`Refused to load a script from ${url.origin}: only this app's own scripts run.`);
  }
  return url.href;
}

/**
 * Installs the policy in this realm: the page, or a worker that starts workers of its own (the parser worker starts
 * the chat-template renderer), since each realm enforces the served policy by itself.
 */
export function installTrustedTypesPolicy(): void {
  const factory = (globalThis as { trustedTypes?: TrustedTypePolicyFactory }).trustedTypes;
  if (!factory) {
    return;
  }
  const base = typeof document !== 'undefined' ? document.baseURI : globalThis.location.href;
  factory.createPolicy('default', {
    createScriptURL: (input) => allowSameOriginScriptUrl(input, base, globalThis.location.origin),
  });
}

if (typeof document !== 'undefined') {
  installTrustedTypesPolicy();
}
