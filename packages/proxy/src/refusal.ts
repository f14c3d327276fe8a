/**
 * An error as OpenAI-compatible clients read it: `{ error: { message, type, code, param } }`.
 * Countersign's refusals carry `type: 'countersign_refused'` and the reason as `code`; the
 * details callers inside the trust boundary branch on sit under `countersign`.
 */
export interface ProxyError {
  status: 400 | 401 | 403 | 404 | 413 | 415 | 502 | 503;
  type: 'countersign_refused' | 'invalid_request_error' | 'authentication_error' | 'countersign_upstream_error';
  code: string;
  message: string;
  param?: string | null | undefined;
  countersign?: Record<string, unknown> | undefined;
}

export interface ProxyErrorBody {
  error: { message: string; type: string; code: string; param: string | null; countersign?: Record<string, unknown> };
}

export function errorBody(error: ProxyError): ProxyErrorBody {
  const body: ProxyErrorBody = { error: { message: error.message, type: error.type, code: error.code, param: error.param ?? null } };
  if (error.countersign !== undefined) body.error.countersign = error.countersign;
  return body;
}

/** How an API shape's clients read an error (OpenAI's `errorBody` unless told). */
export type ErrorFormat = (error: ProxyError) => unknown;

export function errorResponse(error: ProxyError, format: ErrorFormat = errorBody): Response {
  return new Response(JSON.stringify(format(error)), { status: error.status, headers: { 'content-type': 'application/json' } });
}

/** The store could not answer: nothing refused the call, so retrying may help (a call recorded again answers as recorded). */
const STORE_ANSWERS = new Set(['store_unavailable', 'outcome_unknown']);

/** A refusal by a check: 503 when the store could not answer (`STORE_ANSWERS`), 403 otherwise. */
export function refused(code: string, message: string, param?: string, countersign?: Record<string, unknown>): ProxyError {
  return { status: STORE_ANSWERS.has(code) ? 503 : 403, type: 'countersign_refused', code, message, param, countersign };
}

export function invalidRequest(code: string, message: string, param?: string): ProxyError {
  return { status: 400, type: 'invalid_request_error', code, message, param };
}
