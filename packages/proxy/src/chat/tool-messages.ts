import { isRecord, type RelayedResults } from '../relayed.ts';
import { invalidRequest } from '../refusal.ts';
import { unknownOutputShape } from '../tool-output-shape.ts';

/** The roles of chat messages: `tool` carries a result (checked); the others carry none. */
const ROLES_WITHOUT_RESULTS = new Set(['system', 'developer', 'user', 'assistant']);

/**
 * Every tool result a chat completions request relays (role `tool`, by `tool_call_id`).
 * Deny by default for shapes: the legacy role `function` names no call id, and a role the
 * proxy does not know (`ipython`, `observation`: some servers read them as tool output)
 * might carry a result the check never sees; both are refused rather than forwarded
 * unchecked. So is a tool message's content of any shape but text or text parts.
 */
export function chatToolMessages(body: Record<string, unknown>): RelayedResults {
  const messages = body.messages;
  if (!Array.isArray(messages)) return { ok: false, error: invalidRequest('invalid_messages', 'messages must be an array', 'messages') };
  const found: RelayedResults & { ok: true } = { ok: true, messages: [], params: [] };
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    const param = `messages[${i}]`;
    if (!isRecord(message)) return { ok: false, error: invalidRequest('invalid_messages', 'a message must be an object', param) };
    if (message.role === 'function') {
      return { ok: false, error: invalidRequest('unsupported_tool_message', 'role "function" messages carry no call id and cannot be checked; use role "tool"', param) };
    }
    if (typeof message.role === 'string' && ROLES_WITHOUT_RESULTS.has(message.role)) continue;
    if (message.role !== 'tool') {
      return { ok: false, error: invalidRequest('unsupported_tool_message', `a message of role ${JSON.stringify(message.role)} is not one the proxy knows; only role "tool" carries a tool result`, `${param}.role`) };
    }
    if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') {
      return { ok: false, error: invalidRequest('invalid_tool_message', 'a tool message needs its tool_call_id', `${param}.tool_call_id`) };
    }
    const unknown = unknownOutputShape(message.content, 'text');
    if (unknown !== undefined) return { ok: false, error: invalidRequest('unsupported_tool_output', unknown.why, `${param}.content${unknown.at}`) };
    found.messages.push({ callId: message.tool_call_id, content: message.content });
    found.params.push(param);
  }
  return found;
}
