/** A tool call as a model returns it (OpenAI style: arguments are JSON text). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One turn of the scripted "model": what it says and the tool calls it makes. */
export interface ModelTurn {
  say: string;
  toolCall: ToolCall;
}

/**
 * Stands in for an LLM so the example runs offline and the same way every time.
 * Each response carries its tool call exactly as a model API returns it: the
 * arguments are JSON text, which the server canonicalizes strictly.
 */
export function scriptedModel(): ModelTurn[] {
  return [
    {
      say: 'Paying the 25 EUR invoice from Alice.',
      toolCall: { id: 'call_small_transfer', name: 'transfer', arguments: '{"amount": 25, "to": "alice", "memo": "invoice 1042"}' },
    },
    {
      say: 'Moving 2500 EUR to the new supplier, as the email asked.',
      toolCall: { id: 'call_large_transfer', name: 'transfer', arguments: '{"amount": 2500, "to": "new-supplier", "memo": "urgent"}' },
    },
    {
      say: 'Cleaning up: deleting the old repository.',
      toolCall: { id: 'call_delete_repo', name: 'delete_repo', arguments: '{"repo": "acme/legacy"}' },
    },
  ];
}
