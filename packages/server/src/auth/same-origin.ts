/**
 * Whether a state-changing browser request comes from our own pages.
 *
 * - `Sec-Fetch-Site`, when present, must be `same-origin` (browsers set it; pages cannot).
 * - `Origin`, when it names an origin, must be ours.
 * - Our `Referrer-Policy: same-origin` keeps the real Origin on our own form posts (with
 *   `no-referrer` browsers send `Origin: null`, and over plain http to a non-local host they
 *   send no `Sec-Fetch-Site`, so forms would fail). A privacy setting or extension may still
 *   send `Origin: null`; then `Sec-Fetch-Site: same-origin` must vouch for the request.
 * - With neither signal the request is refused (fail closed).
 */
export function isSameOriginRequest(header: (name: string) => string | undefined, expectedOrigin: string): boolean {
  const origin = header('origin');
  const site = header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  if (origin !== undefined && origin !== 'null') return origin === expectedOrigin;
  return site === 'same-origin';
}

/** The origin pages are served from: the configured public origin, else the request's own. */
export function expectedOrigin(publicOrigin: string | undefined, requestUrl: string): string {
  return publicOrigin ?? new URL(requestUrl).origin;
}
