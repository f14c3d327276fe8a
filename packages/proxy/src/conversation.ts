import { textOfContent } from '@countersign/core/integration';
import type { ConversationMessage } from '@countersign/semantic';
import { isRecord } from './relayed.ts';

/** Most messages handed to the extractor (newest kept); the extractor bounds characters itself. */
const MAX_MESSAGES = 200;

/**
 * The conversation of a chat completions or Messages API (`system`, `messages`) or
 * responses (`instructions`, `input`) request body, as plain-text messages for task extraction. Text parts only;
 * tool results keep the `tool` role so the extractor treats them as data. The raw
 * conversation goes no further than the proxy's extractor: only the task sentence it
 * yields reaches the approval service.
 */
export function conversationOf(body: Record<string, unknown>): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  if (typeof body.instructions === 'string') out.push({ role: 'system', content: body.instructions });
  // The Messages API's system prompt: a string or text blocks.
  const system = textOfContent(body.system);
  if (system !== '') out.push({ role: 'system', content: system });
  const items = Array.isArray(body.messages) ? body.messages : typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item.type === 'function_call_output') {
      out.push({ role: 'tool', content: textOfContent(item.output) });
      continue;
    }
    const role = roleOf(item.role);
    if (role === undefined) continue;
    const content = textOfContent(item.content);
    if (content !== '') out.push({ role, content });
  }
  return out.slice(-MAX_MESSAGES);
}

function roleOf(role: unknown): ConversationMessage['role'] | undefined {
  if (role === 'system' || role === 'developer') return 'system';
  if (role === 'user' || role === 'assistant' || role === 'tool') return role;
  return undefined;
}
