import type { ProxyError } from './refusal.ts';

/** One tool call exactly as the model produced it: its id, tool name and raw JSON argument text. */
export interface ModelCall {
  id: string;
  name: string;
  arguments: string;
}

export type ModelCalls = { ok: true; calls: ModelCall[] } | { ok: false; error: ProxyError };
