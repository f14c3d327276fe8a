import type { ProxyError } from './refusal.ts';

/** One tool call exactly as the model produced it: its id, tool name and raw JSON argument text. */
export interface ModelCall {
  id: string;
  name: string;
  arguments: string;
  /**
   * `provider`: a server-side (hosted) tool the provider already ran before the response
   * reached the proxy (a Messages `server_tool_use`, a Responses `web_search_call`...).
   * Recorded so policy decides on it; it can no longer wait for a person (see record-calls.ts).
   */
  executedBy?: 'provider' | undefined;
  /**
   * For a provider's call: its output exactly as the provider produced it, when the answer
   * carried it (a Messages `web_search_tool_result` block, a Responses hosted item). Its
   * digest is recorded, so the client sending it back to the model is relay-checked.
   */
  output?: unknown;
}

export type ModelCalls = { ok: true; calls: ModelCall[] } | { ok: false; error: ProxyError };
