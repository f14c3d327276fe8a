import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * This request's id (x-request-id) for code that builds responses without the Hono
 * context: `jsonResponse` puts it among the headers it sets at construction, so the hot
 * JSON routes never have their response headers rewritten afterwards.
 */
export const currentRequestId = new AsyncLocalStorage<string>();
