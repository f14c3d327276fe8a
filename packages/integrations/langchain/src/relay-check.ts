import type { GatePort } from '@countersign/core';
import type { RelayedToolMessage } from '@countersign/core/gate';
import { checkRelayedOrThrow } from '@countersign/core/integration';
import type { BaseMessage, ToolMessage } from '@langchain/core/messages';

/**
 * Thrown from `beforeModel` when a tool result in the state is not the result recorded
 * for its call (CASA check 5): the messages were edited (a resumed or forked thread
 * with tampered state, a client that sent a `ToolMessage` with the id of a real one, or
 * one made up). The model is never called; `invoke` rejects with this error.
 */
export { CountersignRelayRefusal } from '@countersign/core/integration';

/**
 * The tool results the next model request relays, as `checkRelayed` reads them. Error
 * messages (refusals, tool errors) carry no result and are not checked. A result of a
 * call the approver edited names the edited ledger call; the claim is accepted only
 * for an edit of this very call (`<callId>~edit-…`, the id the gate gives edits), so a
 * message cannot borrow another call's recorded result.
 */
export function relayedToolResults(messages: readonly BaseMessage[]): RelayedToolMessage[] {
  const relayed: RelayedToolMessage[] = [];
  for (const message of messages) {
    if (message.type !== 'tool') continue;
    const tool = message as ToolMessage;
    if (tool.status === 'error') continue;
    const claimed = (tool.additional_kwargs?.countersign as { callId?: unknown } | undefined)?.callId;
    const isEdit = typeof claimed === 'string' && claimed.startsWith(`${tool.tool_call_id}~edit-`);
    relayed.push({ callId: isEdit ? claimed : tool.tool_call_id, content: tool.content });
  }
  return relayed;
}

/** Checks the relayed tool results against the ledger; throws `CountersignRelayRefusal` unless all are faithful. */
export async function checkRelayedMessages(port: GatePort, runId: string, messages: readonly BaseMessage[]): Promise<void> {
  await checkRelayedOrThrow(port, runId, relayedToolResults(messages));
}
