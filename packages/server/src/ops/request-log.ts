import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import type { AppEnv } from '../app/env.ts';
import { isPrebuilt } from '../http/security-headers.ts';

export type HttpObserver = (method: string, route: string, status: number, seconds: number) => void;

export const REQUEST_ID_HEADER = 'x-request-id';

// What a caller may choose as its request id: short and inert in any log viewer.
const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `x-request-id` when it is a plain short
 * token, else a new UUID), echoes it in the response and logs one `request` line when
 * the response is ready. What is logged is chosen, never dumped: method, route path,
 * status, duration. No query string, no headers, no body, so neither a bearer token nor
 * a tool argument can reach the log. `observe`, when given, gets every request's route
 * template (`/api/v1/requests/:id`, never the id itself; `unmatched` for a 404 no route
 * answered), status and duration: the HTTP metrics.
 */
export function requestLog(logger: Logger, observe?: HttpObserver): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const presented = c.req.header(REQUEST_ID_HEADER);
    const requestId = presented !== undefined && ACCEPTED_ID.test(presented) ? presented : randomUUID();
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    // jsonResponse set it already (from the context); rewriting its headers would cost more than the route.
    if (!isPrebuilt(c.res)) c.res.headers.set(REQUEST_ID_HEADER, requestId);
    const status = c.res.status;
    if (observe !== undefined) {
      // After next(), the route index is the handler that answered; a wildcard is a middleware (no route matched).
      const route = routePath(c);
      observe(c.req.method, route.includes('*') ? 'unmatched' : route, status, (performance.now() - started) / 1000);
    }
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    // Nothing would be written (a silent or warn-level logger on a 200): build no line.
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      event: 'request',
      // reqId: requestId is the approval request's id in every other log line.
      reqId: requestId,
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...(c.get('errorCode') === undefined ? {} : { reason: c.get('errorCode') }),
    };
    logger[level](line);
  };
}
