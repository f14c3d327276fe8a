import { isRecord, type RelayedResults } from '../relayed.ts';
import { invalidRequest } from '../refusal.ts';
import { unknownOutputShape } from '../tool-output-shape.ts';
import { isServerToolResult, providerOutputOf } from './server-tool-results.ts';

/** Blocks that carry no tool output, by the role whose message holds them; `tool_result` is checked in either. */
const BLOCKS_WITHOUT_OUTPUT: Record<string, ReadonlySet<string>> = {
  user: new Set(['text', 'image', 'document', 'search_result']),
  // The Claude Agent SDK's runtime sends its environment notes as a system message in the conversation: text only.
  system: new Set(['text']),
  assistant: new Set(['text', 'thinking', 'redacted_thinking', 'tool_use', 'server_tool_use', 'mcp_tool_use']),
};

/**
 * Every tool result a Messages API request relays: each `tool_result` content block, in
 * any message, whatever its shape (string content, text blocks, no content, `is_error`),
 * by `tool_use_id`. A missing `content` is relayed as the empty string the model reads.
 * Deny by default for shapes: another `*_tool_result` block in a user message carries the
 * result of a tool the proxy records no result for; a block type the proxy does not know,
 * a role other than user, assistant and system (text only), and a result whose content is anything but text
 * or text blocks carrying only their text (`citations` quote text too, an image or a
 * document cannot be compared) could carry what the check never compared. Each is
 * refused, never forwarded unchecked. The provider's own server-tool results in an
 * assistant message (`web_search_tool_result`...) are checked against the output the
 * proxy recorded for that call when the provider produced it (less `cache_control`).
 */
export function messagesToolResults(body: Record<string, unknown>): RelayedResults {
  const messages = body.messages;
  if (!Array.isArray(messages)) return { ok: false, error: invalidRequest('invalid_messages', 'messages must be an array', 'messages') };
  const found: RelayedResults & { ok: true } = { ok: true, messages: [], params: [] };
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) return { ok: false, error: invalidRequest('invalid_messages', 'a message must be an object', `messages[${i}]`) };
    const known = BLOCKS_WITHOUT_OUTPUT[message.role as string];
    if (known === undefined) return { ok: false, error: invalidRequest('unsupported_message', `a message of role ${JSON.stringify(message.role)} is not one the proxy knows`, `messages[${i}].role`) };
    if (!Array.isArray(message.content)) continue;
    for (const [j, block] of message.content.entries()) {
      const param = `messages[${i}].content[${j}]`;
      const type = isRecord(block) ? block.type : undefined;
      if (typeof type !== 'string') return { ok: false, error: invalidRequest('unsupported_tool_result', 'a content block needs its type', param) };
      if (known.has(type)) continue;
      if (isServerToolResult(block) && message.role === 'assistant') {
        // The provider's own output of a server tool, sent back: compared with the output recorded for its call.
        if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') {
          return { ok: false, error: invalidRequest('invalid_tool_result', `a ${type} block needs its tool_use_id`, `${param}.tool_use_id`) };
        }
        found.messages.push({ callId: block.tool_use_id, content: providerOutputOf(block), providerOutput: true });
        found.params.push(param);
        continue;
      }
      if (type !== 'tool_result') {
        const what = type.endsWith('_tool_result') ? `${type} blocks cannot be checked; only tool_result is relayed` : `a block of type ${type} is not one the proxy knows, so it cannot be checked`;
        return { ok: false, error: invalidRequest('unsupported_tool_result', what, param) };
      }
      const result = block as Record<string, unknown>;
      if (typeof result.tool_use_id !== 'string' || result.tool_use_id === '') {
        return { ok: false, error: invalidRequest('invalid_tool_result', 'a tool_result needs its tool_use_id', `${param}.tool_use_id`) };
      }
      const unknown = result.content === undefined ? undefined : unknownOutputShape(result.content, 'text');
      if (unknown !== undefined) return { ok: false, error: invalidRequest('unsupported_tool_result', unknown.why, `${param}.content${unknown.at}`) };
      found.messages.push({ callId: result.tool_use_id, content: result.content ?? '' });
      found.params.push(param);
    }
  }
  return found;
}
