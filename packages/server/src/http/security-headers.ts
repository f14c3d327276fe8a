import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app/env.ts';

/**
 * No inline script or style, nothing from other origins, never framed. The pages' scripts
 * (/assets/page.js for the live list and copy buttons, /assets/passkey.js for passkey-signed
 * approvals) load from this origin and talk only to it.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

// Marks responses built by jsonResponse, which carry every header already. A private
// symbol property, not a WeakSet: adding to a WeakSet on every answer was the costliest
// line of jsonResponse (identity hash + ephemeron table), more than its JSON.stringify.
const PREBUILT = Symbol('countersign.prebuiltResponse');
type Marked = Response & { [PREBUILT]?: true };

/**
 * A JSON answer with the security headers (and no-store) already in place, as one
 * plain header record. Why not `c.json` + the middleware: adding headers after the
 * fact makes @hono/node-server turn its lightweight response into a WHATWG Headers
 * object and back, which cost more than the hot agent routes' own handlers. The
 * request id (x-request-id) is read from the context, where the request log put it.
 */
export function jsonResponse(c: Context<AppEnv>, body: unknown, status = 200): Response {
  const requestId = c.get('requestId');
  const response = new Response(JSON.stringify(body), { status, headers: jsonHeaders(requestId) });
  (response as Marked)[PREBUILT] = true;
  return response;
}

/**
 * The header record of a jsonResponse: SECURITY_HEADERS, Content-Type, no-store and the
 * request id, written out as literals (a fixed-shape object V8 builds from a template)
 * rather than spread from SECURITY_HEADERS on every response. security-headers.test.ts
 * holds the two lists equal.
 */
function jsonHeaders(requestId: string | undefined): Record<string, string> {
  if (requestId === undefined) return { ...JSON_HEADERS_WITHOUT_ID };
  return {
    'Content-Type': 'application/json',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
  };
}

// Without the request log (a route mounted on its own, as in tests): the same answer without an id.
const JSON_HEADERS_WITHOUT_ID: Readonly<Record<string, string>> = { 'Content-Type': 'application/json', ...SECURITY_HEADERS, 'Cache-Control': 'no-store' };

/**
 * Sets the security headers on every response, including errors, 404s and event
 * streams. Only the static stylesheet may be cached. A response from jsonResponse
 * that reaches here unchanged already has them.
 */
/** Whether `response` came from jsonResponse (its headers, request id included, are set). */
export function isPrebuilt(response: Response): boolean {
  return (response as Marked)[PREBUILT] === true;
}

export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (isPrebuilt(c.res)) return;
    const headers = c.res.headers;
    for (const name in SECURITY_HEADERS) headers.set(name, SECURITY_HEADERS[name]!);
    if (c.get('cacheable') !== true) headers.set('Cache-Control', 'no-store');
  };
}
