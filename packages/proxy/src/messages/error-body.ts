import type { ProxyError } from '../refusal.ts';

/**
 * An error as Anthropic clients read it: `{ type: "error", error: { type, message } }`.
 * Countersign's fields (`code`, `param`, `countersign`) sit beside them in `error`.
 */
export function messagesErrorBody(error: ProxyError) {
  const inner: Record<string, unknown> = { type: error.type, message: error.message, code: error.code, param: error.param ?? null };
  if (error.countersign !== undefined) inner.countersign = error.countersign;
  return { type: 'error', error: inner };
}
