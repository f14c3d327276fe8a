/**
 * CASA check 5, data fidelity: what a runtime relays back to the model as a tool's
 * result must be one of the accepted projections of the raw result the gate recorded
 * at `complete`. These are the types of that check (`checkRelayed`).
 */

/** One tool result as the runtime relays it to the model (an OpenAI `tool` message, a Responses `function_call_output`). */
export interface RelayedToolMessage {
  /** The tool-call id the model gave the call (OpenAI `tool_call_id`, Responses `call_id`). */
  callId: string;
  /**
   * The content exactly as relayed: a string, or an array of content parts
   * (`{ type: 'text', text }`, as OpenAI chat/Responses and MCP use). Anything else is
   * compared as its canonical JSON.
   */
  content: unknown;
  /**
   * The content is a hosted tool's output the provider produced (a Messages
   * `web_search_tool_result` block, a Responses `file_search_call` item): it passes only for
   * a call the provider ran, canonically equal to the output recorded for it
   * (`recordProviderOutput`), and never stands for a runtime's tool result.
   */
  providerOutput?: true | undefined;
}

export type RelayFailureReason =
  /** No call with this id in this run belongs to the caller (another agent's run reads the same). */
  | 'unknown_call'
  /** The call was recorded but has no result to compare with: never authorized, authorized but not completed, or (when `error` is not accepted) failed. */
  | 'not_executed'
  /** The content is none of the accepted projections of the recorded result. */
  | 'result_mismatch';

export interface RelayFailure {
  callId: string;
  reason: RelayFailureReason;
  message: string;
  /** The recorded call, when there is one the caller may know about. */
  proposalId?: string | undefined;
}

export type RelayCheckOutcome =
  | { ok: true; checked: number }
  | { ok: false; reason: 'relay_refused'; message: string; failures: RelayFailure[] }
  | { ok: false; reason: 'invalid_request' | 'store_unavailable'; message: string };

/** What `checkRelayed` is asked: the run the relayed messages belong to, and the messages. */
export interface CheckRelayedRequest {
  runId: string;
  toolMessages: RelayedToolMessage[];
}
