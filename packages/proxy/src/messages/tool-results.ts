import { isRecord, type RelayedResults } from '../relayed.ts';
import { invalidRequest } from '../refusal.ts';

/**
 * Every tool result a Messages API request relays: each `tool_result` content block, in
 * any message, whatever its shape (string content, content blocks, no content, `is_error`),
 * by `tool_use_id`. A missing `content` is relayed as the empty string the model reads.
 * Other `*_tool_result` blocks in a user message carry results of tools the proxy records
 * no result for: refused, never forwarded unchecked. So is a text block inside a result
 * with fields beside its text (`citations` quote text too): the check compares the text.
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
        const extra = Array.isArray(block.content) ? block.content.findIndex(carriesMoreThanText) : -1;
        if (extra !== -1) {
          return { ok: false, error: invalidRequest('unsupported_tool_result', 'a text block of a tool_result may carry only its text (and cache_control): citations and other fields are more text the model reads', `${param}.content[${extra}]`) };
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

/** Fields of a text block the relay check does not compare, which change nothing the model reads. */
const INERT_TEXT_FIELDS = new Set(['type', 'text', 'cache_control']);

function carriesMoreThanText(block: unknown): boolean {
  return isRecord(block) && block.type === 'text' && Object.keys(block).some((key) => !INERT_TEXT_FIELDS.has(key));
}
