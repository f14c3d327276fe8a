import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app/env.ts';

/** No inline script or style, nothing from other origins, never framed. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Sets the security headers on every response, including errors, 404s and event
 * streams. Only the static stylesheet may be cached.
 */
export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('Referrer-Policy', 'same-origin');
    headers.set('X-Frame-Options', 'DENY');
    headers.set('Cross-Origin-Opener-Policy', 'same-origin');
    headers.set('Cross-Origin-Resource-Policy', 'same-origin');
    if (c.get('cacheable') !== true) headers.set('Cache-Control', 'no-store');
  };
}
