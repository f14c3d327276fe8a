import type { GatePort } from '@countersign/core';
import { auditingUnknownShapes, type GuardedContext, type RefusalMemory, type RelayedMessage, relayChecked, unknownShape } from '@countersign/core/integration';
import type { BaseMessage, ToolMessage } from '@langchain/core/messages';

/**
 * Thrown from `beforeModel` when a tool result in the state is not the result recorded
 * for its call (CASA check 5): the messages were edited (a resumed or forked thread
 * with tampered state, a client that sent a `ToolMessage` with the id of a real one, or
 * one made up). The model is never called; `invoke` rejects with this error.
 */
export { CountersignRelayRefusal } from '@countersign/core/integration';

/** Message types that carry no tool output: the conversation and the model's own turns. */
const CARRIES_NO_OUTPUT = new Set(['human', 'ai', 'system', 'developer']);

/**
 * Every message the next model request relays that carries a tool's output: each
 * `ToolMessage`, `status: 'error'` ones included (a tool's error must be its recorded
 * error; a Countersign refusal is trusted only when this middleware gave it: see
 * `relayChecked`). The result of a call the approver edited is relayed under the
 * model's call id; the ledger links it to the edited call. Deny by default: any other
 * message type (function messages, custom types) throws `CountersignRelayRefusal`.
 */
export function relayedToolResults(messages: readonly BaseMessage[]): RelayedMessage[] {
  const relayed: RelayedMessage[] = [];
  for (const message of messages) {
    const type = message.type as string;
    if (CARRIES_NO_OUTPUT.has(type)) continue;
    if (type !== 'tool') throw unknownShape('a LangChain message', { type });
    const tool = message as ToolMessage;
    relayed.push({ callId: tool.tool_call_id, content: tool.content });
  }
  return relayed;
}

/**
 * Checks the relayed tool results against the ledger; throws `CountersignRelayRefusal` unless all are faithful.
 * A message of an unknown type is refused and audited (`unknown_shape`) in `context`'s run.
 */
export async function checkRelayedMessages(port: GatePort, memory: RefusalMemory & { context: GuardedContext }, messages: readonly BaseMessage[]): Promise<void> {
  const relayed = await auditingUnknownShapes(port, memory.context, () => relayedToolResults(messages));
  await relayChecked(port, memory, relayed);
}
