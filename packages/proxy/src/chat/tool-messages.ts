import { isRecord, type RelayedResults } from '../relayed.ts';
import { invalidRequest } from '../refusal.ts';

/**
 * Every tool result a chat completions request relays (role `tool`, by `tool_call_id`).
 * The legacy role `function` names no call id, so its result cannot be checked: it is
 * refused rather than forwarded unchecked.
 */
export function chatToolMessages(body: Record<string, unknown>): RelayedResults {
  const messages = body.messages;
  if (!Array.isArray(messages)) return { ok: false, error: invalidRequest('invalid_messages', 'messages must be an array', 'messages') };
  const found: RelayedResults & { ok: true } = { ok: true, messages: [], params: [] };
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isRecord(message)) continue;
    const param = `messages[${i}]`;
    if (message.role === 'function') {
      return { ok: false, error: invalidRequest('unsupported_tool_message', 'role "function" messages carry no call id and cannot be checked; use role "tool"', param) };
    }
    if (message.role !== 'tool') continue;
    if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') {
      return { ok: false, error: invalidRequest('invalid_tool_message', 'a tool message needs its tool_call_id', `${param}.tool_call_id`) };
    }
    found.messages.push({ callId: message.tool_call_id, content: message.content });
    found.params.push(param);
  }
  return found;
}
