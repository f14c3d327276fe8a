import { type ConversationMessage, textOfContent, textOfToolOutput } from '@countersign/core/integration';

/**
 * A model request's conversation (the Agents SDK's `systemInstructions` and `input`) as
 * plain-text messages for task extraction: the text of system, developer, user and
 * assistant messages, and the outputs of tools (`function_call_result`, hosted tool
 * calls, computer, shell and patch outputs) as role `tool`: data, never the user's
 * words. Calls, reasoning, images and files carry no text here.
 */
export function conversationOfRequest(request: { systemInstructions?: string | undefined; input: unknown }): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  const push = (role: ConversationMessage['role'], content: string) => {
    if (content !== '') out.push({ role, content });
  };
  if (typeof request.systemInstructions === 'string') push('system', request.systemInstructions);
  if (typeof request.input === 'string') {
    push('user', request.input);
    return out;
  }
  if (!Array.isArray(request.input)) return out;
  for (const item of request.input as Array<{ type?: unknown; role?: unknown; content?: unknown; output?: unknown }>) {
    if (typeof item !== 'object' || item === null) continue;
    if (item.type === undefined || item.type === 'message') {
      const role = item.role === 'developer' ? 'system' : item.role;
      if (role === 'system' || role === 'user' || role === 'assistant') push(role, textOfContent(item.content));
      continue;
    }
    if (typeof item.type === 'string' && (item.type.endsWith('_result') || item.type.endsWith('_output') || item.type === 'hosted_tool_call')) {
      push('tool', textOfToolOutput(item.output));
    }
  }
  return out;
}

export type { ConversationMessage, IntentOption, TaskExtractor, TaskSource } from '@countersign/core/integration';
