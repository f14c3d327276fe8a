/**
 * Run correlation. The agent runtime sets the same run id on its requests to the proxy and
 * on its MCP connection to the gateway; the run belongs to the authenticated agent, so
 * another agent naming it gets nothing. Never read from anything the model writes.
 */
export const RUN_HEADER = 'x-countersign-run';
/** Optional: the session the run belongs to (default: the run id). */
export const SESSION_HEADER = 'x-countersign-session';
/** Optional: on whose behalf the agent acts, when its credentials do not fix it. */
export const PRINCIPAL_HEADER = 'x-countersign-principal';

/** Request headers passed on to the upstream: content negotiation only, never the agent's credentials. */
export const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'openai-beta', 'idempotency-key', 'anthropic-version', 'anthropic-beta'] as const;

/** Response headers never copied back (hop-by-hop, or no longer true of the body the proxy sends). */
export const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'set-cookie']);
