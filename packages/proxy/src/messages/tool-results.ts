import { isRecord, type RelayedResults } from '../relayed.ts';
import { invalidRequest } from '../refusal.ts';

/**
 * Every tool result a Messages API request relays: each `tool_result` content block, in
 * any message, whatever its shape (string content, content blocks, no content, `is_error`),
 * by `tool_use_id`. A missing `content` is relayed as the empty string the model reads.
 * Other `*_tool_result` blocks in a user message carry results of tools the proxy records
 * no result for: refused, never forwarded unchecked.
 */
export function messagesToolResults(body: Record<string, unknown>): RelayedResults {
  const messages = body.messages;
  if (!Array.isArray(messages)) return { ok: false, error: invalidRequest('invalid_messages', 'messages must be an array', 'messages') };
  const found: RelayedResults & { ok: true } = { ok: true, messages: [], params: [] };
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const [j, block] of message.content.entries()) {
      if (!isRecord(block) || typeof block.type !== 'string') continue;
      const param = `messages[${i}].content[${j}]`;
      if (block.type === 'tool_result') {
        if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') {
          return { ok: false, error: invalidRequest('invalid_tool_result', 'a tool_result needs its tool_use_id', `${param}.tool_use_id`) };
        }
        found.messages.push({ callId: block.tool_use_id, content: block.content ?? '' });
        found.params.push(param);
      } else if (block.type.endsWith('_tool_result') && message.role === 'user') {
        return { ok: false, error: invalidRequest('unsupported_tool_result', `${block.type} blocks cannot be checked; only tool_result is relayed`, param) };
      }
    }
  }
  return found;
}
